import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable } from 'rxjs';

/**
 * An `AsyncLocalStorage` whose async hook runs only while one of its scopes is open.
 *
 * On Node 20 the first `run()` of any AsyncLocalStorage turns on a process-wide async hook that runs
 * for every promise and async resource the process creates from then on, for good: one audited write
 * made every later request pay for it, reads included (about a fifth of the CPU of `GET /v1/user`,
 * decision 0068). Here the storage is disabled again when its last open scope closes, so a replica
 * serving reads between writes runs without the hook; while any scope is open the storage behaves
 * exactly as an AsyncLocalStorage does.
 *
 * What a scope covers: the work `run` is given until its promise settles, or the Observable `observe`
 * returns until it completes, fails or is unsubscribed. Work started inside a scope that outlives it
 * reads no store once no scope is open (it would read a request's scope after that request ended).
 */
export class ScopedStorage<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  private open = 0;

  /** The store of the scope the caller runs in, or undefined outside every scope. */
  getStore(): T | undefined {
    return this.storage.getStore();
  }

  /** Runs `work` with `store`; the scope stays open until the promise `work` returns settles. */
  run<R>(store: T, work: () => Promise<R>): Promise<R> {
    const close = this.enter();
    let result: Promise<R>;
    try {
      result = this.storage.run(store, work);
    } catch (error) {
      close();
      throw error;
    }
    return result.finally(close);
  }

  /** `source()` subscribed with `store`; the scope stays open until its subscription ends. */
  observe<R>(store: T, source: () => Observable<R>): Observable<R> {
    return new Observable<R>((subscriber) => {
      const close = this.enter();
      try {
        this.storage.run(store, () => source().subscribe(subscriber));
      } catch (error) {
        close();
        throw error;
      }
      // Runs once the subscriber completes, fails or unsubscribes (the inner subscription ends with it).
      return close;
    });
  }

  /** Opens a scope; the returned function closes it (once). */
  private enter(): () => void {
    this.open++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      // The last scope closed: off the process-wide hook (it stays on while another storage needs it).
      if (--this.open === 0) this.storage.disable();
    };
  }
}
