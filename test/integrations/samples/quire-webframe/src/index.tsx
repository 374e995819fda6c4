import { createComponent, createIntegration } from '@gitbook/runtime';

const diagram = createComponent<{ source?: string }>({
  componentId: 'diagram',
  render: async (element, context) => {
    const endpoint = context.environment.integration.urls.publicEndpoint.replace(/\/$/, '');
    const source = encodeURIComponent(element.props.source ?? 'A --> B');
    return (
      <block>
        <webframe source={{ url: `${endpoint}/frame?source=${source}` }} aspectRatio={16 / 9} />
      </block>
    );
  },
});

export default createIntegration({
  components: [diagram],
  fetch: async (request) => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/frame')) {
      const source = url.searchParams.get('source') ?? '';
      const escaped = source.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
      return new Response(`<!doctype html><html><body><pre class="diagram">${escaped}</pre></body></html>`, {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    }
    return new Response('Not found', { status: 404 });
  },
});
