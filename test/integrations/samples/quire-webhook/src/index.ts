import { createIntegration } from '@gitbook/runtime';

async function sign(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body));
  return [...new Uint8Array(signature)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export default createIntegration({
  events: {
    space_content_updated: async (event, context) => {
      const account = context.environment.installation?.configuration as { webhookUrl?: string; secret?: string } | undefined;
      const enabled = Boolean(context.environment.spaceInstallation?.configuration?.enabled);
      if (!enabled || !account?.webhookUrl || !account.secret) {
        console.log(`webhook skipped for space ${event.spaceId}`);
        return;
      }
      const body = JSON.stringify({ type: 'space_content_updated', spaceId: event.spaceId, revisionId: event.revisionId });
      const response = await fetch(account.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-quire-signature': `sha256=${await sign(account.secret, body)}` },
        body,
      });
      console.log(`webhook sent for space ${event.spaceId}: ${response.status}`);
    },
  },
});
