const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string has the shape of a UUID (ids of users, jobs and payments). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}
