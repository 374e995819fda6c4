import { createComponent, createIntegration } from '@gitbook/runtime';

/** Like GitBook's webhook integration: its configuration screen reads the integration's first external link. */
const configure = createComponent({
  componentId: 'configure',
  render: async (element, context) => {
    const integration = context.environment.integration;
    const docs = integration.externalLinks[0].url;
    return (
      <configuration>
        <markdown content={`See ${docs} (by ${integration.owner.title})`} />
      </configuration>
    );
  },
});

/** A block that caches its output, as `setCache` lets a block do. */
const cached = createComponent({
  componentId: 'cached',
  render: async (element) => {
    element.setCache({ maxAge: 300 });
    return (
      <block>
        <markdown content="cached for five minutes" />
      </block>
    );
  },
});

/**
 * Like GitBook's webhook integration: a space configuration screen whose "save" action writes the space
 * installation's configuration back through the API with the script's own token.
 */
const spaceConfig = createComponent<Record<string, never>, { saved?: string }, { action: 'save'; channel: string }>({
  componentId: 'space-config',
  initialState: {},
  action: async (element, action, context) => {
    if (action.action !== 'save') return element;
    const { integration, installation, spaceInstallation } = context.environment;
    await context.api.integrations.updateIntegrationSpaceInstallation(integration.name, installation!.id, spaceInstallation!.space, {
      configuration: { channel: action.channel },
    });
    return { state: { saved: action.channel } };
  },
  render: async (element, context) => {
    const channel = (context.environment.spaceInstallation?.configuration as { channel?: string } | undefined)?.channel ?? 'none';
    return (
      <configuration>
        <markdown content={`channel=${channel} saved=${element.state.saved ?? 'no'}`} />
      </configuration>
    );
  },
});

export default createIntegration({
  components: [configure, cached, spaceConfig],
  events: {
    /** Like GitBook's analytics integrations: a site view read with the site installation's configuration. */
    site_view: async (event, context) => {
      const site = context.environment.siteInstallation;
      console.log(
        `site_view of ${event.siteId}: siteInstallation ${site ? `${site.site} key=${(site.configuration as { siteKey?: string }).siteKey}` : 'missing'}`,
      );
      console.log(`spaceInstallation ${context.environment.spaceInstallation ? 'present' : 'absent'}`);
    },
  },
});
