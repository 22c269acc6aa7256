// List resources the query engine defines itself: the run events list.

export { runEventsResource } from './run-events.ts';
