import { defineJob, defineMaintenanceJob } from '../../../jobs/job-definition';

/**
 * Renders one change-request PDF (`change_request_pdf_renders` row) with pdfkit and stores the bytes.
 * Idempotent: a render that is no longer pending is left alone. A missing revision or page fails the
 * render at once; other errors are retried, and the last attempt records the failure.
 */
export const RENDER_PDF = defineJob<{ renderId: string }>({
  name: 'change-requests.render-pdf',
  retryLimit: 2,
  retryDelaySeconds: 1,
  retryBackoff: true,
  expireInSeconds: 5 * 60,
});

/** Renders are kept a day; a render still pending after an hour lost its job and goes too. */
export const PURGE_PDF_RENDERS = defineMaintenanceJob('change-requests.purge-pdf-renders', '17 * * * *');

export const PDF_RENDER_KEEP_MS = 24 * 60 * 60 * 1000;
export const PDF_RENDER_STALE_MS = 60 * 60 * 1000;
