/** Where a job's recording is played from (GET /api/audio/{jobId}: owner only, range requests). */
export const audioFileUrl = (jobId: string) => `/api/audio/${jobId}`;
