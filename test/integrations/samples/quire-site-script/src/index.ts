import { createIntegration } from '@gitbook/runtime';

export default createIntegration({
  fetch_published_script: async (event, context) => {
    const trackingId = String(context.environment.siteInstallation?.configuration?.trackingId ?? '');
    console.log(`serving the script of site ${event.siteId}`);
    return new Response(`window.quireTracker = { id: ${JSON.stringify(trackingId)}, site: ${JSON.stringify(event.siteId)} };`, {
      headers: { 'content-type': 'application/javascript' },
    });
  },
});
