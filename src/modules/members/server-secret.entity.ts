import { encryptedText } from '../../common/crypto/secret-cipher';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A secret generated once by whichever replica needs it first, then shared by all of them. */
@Entity('server_secrets')
export class ServerSecret {
  @PrimaryColumn('text')
  name: string;

  /** Encrypted at rest (`common/crypto/secret-cipher.ts`); plaintext here. */
  @Column('text', { transformer: encryptedText('server_secrets.value') })
  value: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
