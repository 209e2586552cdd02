export { AckedPublisher, type PubAck } from './acked-publisher.ts';
export {
  type AccountChanged,
  AUTH_EVENTS,
  type PlanChanged,
  type TokenRevoked,
} from './auth-events.ts';
export {
  connectNats,
  type NatsConnection,
  publishJson,
  type Subscription,
  subscribeJson,
} from './connection.ts';
export {
  announceDataChanged,
  DATA_CHANGED,
  type DataChangeAnnouncer,
  type DataService,
  startDataChangeAnnouncer,
} from './data-changes.ts';
export {
  deleteStreamFamily,
  ensureStream,
  jetstreamManager,
  type StreamSpec,
  streamFamily,
} from './jetstream.ts';
