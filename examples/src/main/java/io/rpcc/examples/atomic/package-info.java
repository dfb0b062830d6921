/**
 * Atomic chains, from Waldo's paper: bank transfers across three sites
 * ({@link io.rpcc.examples.atomic.BankTransfer}), the majority-endorsed replicated log of its section
 * 3.5 ({@link io.rpcc.examples.atomic.ReplicatedLog}), and its microbenchmarks beside rpcc's and
 * beside plain two-phase commit over rpcc calls ({@link io.rpcc.examples.atomic.AtomicFigures}).
 */
package io.rpcc.examples.atomic;
