// A gRPC server in a process of its own, so a test can SIGSTOP it: the kernel keeps its connections
// open while it answers nothing, as a wedged pod does. Prints its port; `MISSING` is NOT_FOUND.
import { options } from '@mdp/proto';
import { createLogger, createRegistry, trace } from '@mdp/telemetry';
import { jsonDocument } from '../src/documents.ts';
import { RpcError } from '../src/rpc-error.ts';
import { GrpcServer } from '../src/server.ts';

const name = process.argv[2] ?? 'replica';
const server = new GrpcServer({
  logger: createLogger(name, 'silent'),
  tracer: trace.getTracer(name),
  registry: createRegistry(name),
}).add(options.OptionsAnalyticsServiceService, {
  getStockOptions: async (req) => {
    if (req.symbol === 'MISSING') throw RpcError.notFound('no such stock');
    return jsonDocument({ server: name });
  },
  getOptionChain: async () => jsonDocument({}),
  getIvHistory: async () => jsonDocument({}),
});
const port = await server.listen('127.0.0.1', 0);
process.stdout.write(`${port}\n`);
