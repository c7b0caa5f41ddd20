// Closed-form TPC-H rules (clause 4.2.3) shared by the table generators and their tests:
// sparse order keys, part retail price, the four suppliers of each part, order customer keys.
#pragma once

#include <cstdint>

namespace tandem::tpch {

// Orders use only the first 8 of every 32 keys: key mod 32 is in [0, 8). Counting orders from 1,
// order n gets key (n / 8) * 32 + n mod 8, so keys run 1..7, 32..39, 64..71, ... and the last of
// SF * 1,500,000 orders has key SF * 6,000,000 (the layout of the reference generator).
inline int64_t OrderKeyOf(int64_t order_index) {
  const int64_t n = order_index + 1;
  return (n >> 3) * 32 + (n & 7);
}

// P_RETAILPRICE = (90000 + ((P_PARTKEY/10) modulo 20001) + 100 * (P_PARTKEY modulo 1000)) / 100,
// returned in cents (the unscaled decimal(15,2) value).
inline int64_t RetailPriceCents(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

// The spec's PS_SUPPKEY = (ps_partkey + (i * ((S/4) + (int)(ps_partkey-1)/S))) modulo S + 1.
inline int64_t SpecPartSupplier(int64_t partkey, int i, int64_t suppliers) {
  return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}

// Supplier i (0..3) of a part. Equals SpecPartSupplier except at the few fractional scale factors
// where the formula repeats a supplier within one part (e.g. S = 102, 105, 108...): there the
// repeat moves to the next supplier key not yet used by this part, keeping (partkey, suppkey)
// unique. Lineitems use the same function, so they always reference an existing partsupp row.
inline int64_t PartSupplierKey(int64_t partkey, int i, int64_t suppliers) {
  int64_t keys[4];
  for (int k = 0; k <= i; ++k) {
    int64_t key = SpecPartSupplier(partkey, k, suppliers);
    for (bool repeated = true; repeated;) {
      repeated = false;
      for (int j = 0; j < k; ++j) {
        if (keys[j] == key) {
          key = key % suppliers + 1;
          repeated = true;
        }
      }
    }
    keys[k] = key;
  }
  return keys[i];
}

// Customer keys that are not multiples of 3 (a third of the customers place no orders), in order:
// index j in [0, customers - customers/3) -> 1, 2, 4, 5, 7, ...
inline int64_t OrderingCustomerCount(int64_t customers) { return customers - customers / 3; }
inline int64_t OrderingCustomerKey(int64_t j) { return j + j / 2 + 1; }

}  // namespace tandem::tpch
