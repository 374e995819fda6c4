import { AppConfig } from '../../config/app-config';
import { User } from './user.entity';

/** `User` as the API shows it (section 2.2). */
export interface UserJson {
  object: 'user';
  id: string;
  displayName: string;
  email: string;
  photoURL?: string;
  urls: { location: string };
}

export function presentUser(user: User, config: AppConfig): UserJson {
  const json: UserJson = {
    object: 'user',
    id: user.id,
    displayName: user.displayName,
    email: user.email,
    urls: { location: config.apiUrl(`/v1/users/${user.id}`) },
  };
  if (user.photoUrl) json.photoURL = user.photoUrl;
  return json;
}
