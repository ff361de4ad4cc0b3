/**
 * The library's public types (lib/types.ts, plain interfaces so that the published declarations
 * need no package) are the deposit model's (domain/deposit.ts), checked at compile time: `npx tsc
 * -p .` fails when a field is added to, removed from or retyped in one and not the other.
 */
import { describe, expect, it } from 'vitest';
import type { CreateRequest } from '../../src/api/models.js';
import type {
  CreatedDepositModel,
  DepositFieldsModel,
  DepositModel,
  FixedFields,
  SettlementModel,
} from '../../src/domain/deposit.js';
import type {
  CreatedDeposit,
  Deposit,
  DepositFields,
  DepositRequest,
  Settlement,
} from '../../src/lib/types.js';
import type { CreatedRecord } from '../../src/store/history-records.js';

/** The same properties, with the same types: each way assignable, and no property left over. */
type Flat<T> = { [K in keyof T]: T[K] };
type Equal<A, B> =
  (<T>() => T extends Flat<A> ? 1 : 2) extends <T>() => T extends Flat<B> ? 1 : 2 ? true : false;

/** A line that compiles only when its argument is `true`. */
function same<T extends true>(_proof: T): void {}

// the compiler does the checking; the calls are here so the types are evaluated
same<Equal<DepositFields, DepositFieldsModel>>(true);
same<Equal<CreatedDeposit, CreatedDepositModel>>(true);
same<Equal<Deposit, DepositModel>>(true);
same<Equal<Settlement, SettlementModel>>(true);
same<Equal<DepositRequest, CreateRequest>>(true);
same<Equal<NonNullable<CreatedRecord['answer']>, FixedFields>>(true);

describe('the public types are the model', () => {
  it('the equality check tells different types apart (else the lines above prove nothing)', () => {
    const differs: Equal<{ a: number }, { a: number; b?: string }> = false;
    const retyped: Equal<{ a: number }, { a: string }> = false;
    const alike: Equal<{ a: number } & { b: string }, { a: number; b: string }> = true;
    expect([differs, retyped, alike]).toEqual([false, false, true]);
  });
});
