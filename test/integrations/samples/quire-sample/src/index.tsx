import { createComponent, createIntegration } from '@gitbook/runtime';

type State = { count: number };

const counter = createComponent<{}, State, { action: 'increment' }>({
  componentId: 'counter',
  initialState: { count: 0 },
  action: async (element, action) => {
    if (action.action === 'increment') {
      return { state: { count: element.state.count + 1 } };
    }
    return {};
  },
  render: async (element, context) => {
    const greeting = String(context.environment.installation?.configuration?.greeting ?? 'hello');
    return (
      <block>
        <button label={`${greeting} ${element.state.count}`} onPress={{ action: 'increment' }} />
      </block>
    );
  },
});

export default createIntegration({
  components: [counter],
  fetch: async (request) => {
    const url = new URL(request.url);
    return new Response(JSON.stringify({ path: url.pathname, method: request.method }), {
      headers: { 'content-type': 'application/json' },
    });
  },
  events: {
    installation_setup: async (event, context) => {
      console.log(`installation_setup ${event.status} for ${context.environment.integration.name}`);
    },
    space_installation_setup: async (event) => {
      console.log(`space_installation_setup ${event.status}`);
    },
  },
});
