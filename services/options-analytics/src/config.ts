import { DEFAULT_PORTS } from '@mdp/config';
import { Type } from '@sinclair/typebox';

/** Variables of the options service and its data tool, besides the common and database ones. */
export const optionsConfig = {
  RISK_FREE_RATE: Type.Number({
    default: 0.065,
    minimum: -0.05,
    maximum: 0.5,
    description:
      'Continuously compounded risk-free rate (a fraction) for discounting and Greeks; the generator prices with it too',
  }),
};

/** The service's own variables: where the trading calendar's owner is. */
export const optionsServiceConfig = {
  ...optionsConfig,
  EQUITIES_ADDR: Type.String({
    default: `localhost:${DEFAULT_PORTS['equities-data'].grpc}`,
    description:
      'gRPC target of equities-data, whose trading calendar (holidays, special sessions) this service follows: host:port or dns:///name:port',
  }),
};

export const DEFAULT_SCHEMA = 'options';
