import type { TeamRow } from '../teams/team.read-model';
import { SamlProvider } from './saml-provider.entity';

/** A provider with its default team (counts and the caller's permissions included), ready to present. */
export interface SamlProviderRow {
  provider: SamlProvider;
  defaultTeam: TeamRow | undefined;
}
