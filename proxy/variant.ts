/**
 * Which variant each key speaks (ADR-070). Both OpenAPI documents say a merchant's variant is
 * pinned per API key, and one server may serve both. With `--variant`, every key is held to it.
 * Without, a key's variant is learned from its first success answer that only one variant's
 * contract accepts (A1's shape, the type of `total`, A3, which only Variant 1 has); until then an
 * answer either variant accepts is accepted. A session token takes the variant of the A1 answer
 * that gave it. The memory is bounded: past `max` keys (or tokens), the oldest learned is forgotten
 * and learned again.
 */
import type { Variant } from '../generated/index.ts';

export const VARIANTS: readonly Variant[] = [1, 2];

/** What a key was pinned by: its variant and the exchange that showed it. */
export interface Pin {
  variant: Variant;
  seq: number;
}

/** A bounded map: the oldest entry goes first once `max` is passed. */
class Bounded<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(k: string, v: V): this {
    super.set(k, v);
    if (this.size > this.max) this.delete(this.keys().next().value as string);
    return this;
  }
}

export class VariantBook {
  private readonly keys: Bounded<Pin>;
  private readonly tokens: Bounded<Pin>;
  /** Keys pinned per variant (the report's count; a forgotten key is counted again when learned again). */
  readonly pinned: Record<Variant, number> = { 1: 0, 2: 0 };

  constructor(
    readonly fixed: Variant | undefined,
    max = 100_000,
  ) {
    this.keys = new Bounded(max);
    this.tokens = new Bounded(max);
  }

  /** The variant a caller is held to: a key digest (merchant) or a session token; undefined while not known. */
  of(merchant: string | null, token: string | undefined): Pin | undefined {
    if (this.fixed !== undefined) return { variant: this.fixed, seq: 0 };
    if (merchant !== null) return this.keys.get(merchant);
    return token === undefined ? undefined : this.tokens.get(token);
  }

  /** The variants an answer to this caller may be judged by: its pinned one, or both while not known. */
  candidates(pin: Pin | undefined): readonly Variant[] {
    return pin ? [pin.variant] : VARIANTS;
  }

  pin(merchant: string | null, token: string | undefined, p: Pin): void {
    if (this.fixed !== undefined) return;
    if (merchant !== null) {
      if (!this.keys.has(merchant)) this.pinned[p.variant]++;
      this.keys.set(merchant, p);
    } else if (token !== undefined) this.tokens.set(token, p);
  }

  /** A session token an A1 answer gave: its calls speak the key's variant. */
  token(token: string, p: Pin): void {
    if (this.fixed === undefined) this.tokens.set(token, p);
  }
}
