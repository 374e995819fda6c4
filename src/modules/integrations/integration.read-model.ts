/** Shapes stored in the integration's JSON columns and returned by its queries. */

export interface IntegrationBlock {
  id: string;
  title: string;
  description?: string;
  icon?: string;
  urlUnfurl?: string[];
  markdown?: { codeblock: string; body: string };
}

export interface IntegrationConfigurationSchema {
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  [key: string]: unknown;
}

export interface IntegrationConfigurations {
  account?: IntegrationConfigurationSchema;
  space?: IntegrationConfigurationSchema;
  site?: IntegrationConfigurationSchema;
}

/** One line of a script's console output, as the event's `trace.logs` show it. */
export interface TraceLog {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}
