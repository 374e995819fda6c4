import { AppConfig } from '../../config/app-config';
import { User } from './user.entity';
import type { EmailVisibility } from './user.policy';

/** `User` as the API shows it (section 2.2). */
export interface UserJson {
  object: 'user';
  id: string;
  displayName: string;
  /** Absent when the caller may not see it (see user.policy.ts). */
  email?: string;
  photoURL?: string;
  urls: { location: string };
}

/** `emails`: the users whose e-mail the caller may see (user.policy.ts). */
export function presentUser(user: User, config: AppConfig, emails: EmailVisibility): UserJson {
  const json: UserJson = {
    object: 'user',
    id: user.id,
    displayName: user.displayName,
    urls: { location: config.apiUrl(`/v1/users/${user.id}`) },
  };
  if (emails.has(user.id)) json.email = user.email;
  if (user.photoUrl) json.photoURL = user.photoUrl;
  return json;
}
