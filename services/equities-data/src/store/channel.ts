/** Channel a committed import or load notifies (payload: the schema), so a running service reloads. */
export const RELOAD_CHANNEL = 'equities_dataset_changed';
