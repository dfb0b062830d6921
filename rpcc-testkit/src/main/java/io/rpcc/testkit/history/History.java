package io.rpcc.testkit.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A record of transactions as their clients and servers saw them, for
 * {@link SerializabilityChecker}. Thread-safe: clients record from any thread while they run, and the
 * checker reads a snapshot at the end.
 *
 * <p>For each transaction (named by a string id, such as the chain's id) the history holds its operations
 * in the order they were recorded: {@link #read} (the key and the value observed, {@code null} for "no
 * value yet") and {@link #write} (the key and the new value); and its {@link Outcome} as the client saw
 * it. A transaction with no outcome recorded when the checker runs counts as {@link Outcome#UNKNOWN}.
 *
 * <p><b>Written values must be unique per transaction and key</b> (two transactions never write the same
 * value to a key; a transaction may write a key twice with two values, the last one is what it
 * installs): {@code "T17:k3"}, or a number from a shared counter. The checker traces every read to the
 * one write it observed, and refuses a history that breaks this rule.
 *
 * <p>Optional facts sharpen the verdict: {@link #installed} appends a committed write to its key's
 * version order, in commit order, as a server saw it (a log of what was applied); {@link #finalState}
 * gives the value read at the end of the test, once everything settled; {@link #initial} gives a key's
 * value before any transaction (a seeded value). Without an install log the checker infers the version
 * order only where it must hold (a transaction read a version and then overwrote it; the final value
 * comes last), so it can miss some anomalies among blind writes.
 *
 * <pre>{@code
 * History history = new History();
 *
 * // the test's service function, in an atomic hop: it stores only unique values and returns what it saw
 * String seen = map.get("x");
 * map.put("x", txId + ":x");
 * Transaction.current().onCommit(() -> history.installed("x", txId + ":x"));   // optional: the version order
 * return seen;
 *
 * // the client, once the chain's future completed
 * history.read(txId, "x", seen).write(txId, "x", txId + ":x");
 * history.end(txId, committed ? Outcome.COMMITTED : abortedForSure ? Outcome.ABORTED : Outcome.UNKNOWN);
 *
 * // at the end of the test
 * history.finalState("x", map.get("x"));
 * SerializabilityChecker.check(history).assertOk();
 * }</pre>
 *
 * <p>Record what the transaction's last run saw: a hop that was run again (it waited for a lock, the
 * chain was restarted) returns what its last run read, and only that run's writes can commit. An install
 * log is only as good as its order: append to it where the key's versions are applied one after another
 * (while the writer still holds the key's lock), not from a thread that may race with the next commit.
 */
public final class History {
    /** One operation of a transaction; {@code value} is {@code null} only for a read of "no value". */
    record Op(boolean write, String key, @Nullable Object value) {}

    /** A transaction's record, guarded by itself. */
    private static final class Tx {
        final String id;
        final long seq;
        final List<Op> ops = new ArrayList<>();
        @Nullable Outcome outcome;

        Tx(String id, long seq) {
            this.id = id;
            this.seq = seq;
        }
    }

    /** A transaction as the checker reads it: a copy. */
    record TxView(String id, List<Op> ops, Outcome outcome) {}

    /** Keys' facts as the checker reads them: copies. */
    record Facts(Map<String, List<Object>> installed, Map<String, Optional<Object>> finalState,
            Map<String, Object> initial, boolean installLogComplete) {}

    private final AtomicLong seq = new AtomicLong();
    private final Map<String, Tx> txs = new ConcurrentHashMap<>();
    /** Per key, its install log; each list guarded by itself. */
    private final Map<String, List<Object>> installed = new ConcurrentHashMap<>();
    /** Per key, the final value ({@code Optional.empty()}: no value). */
    private final Map<String, Optional<Object>> finalState = new ConcurrentHashMap<>();
    private final Map<String, Object> initial = new ConcurrentHashMap<>();
    private volatile boolean installLogComplete;

    /** An empty history. */
    public History() {}

    private Tx tx(String id) {
        Objects.requireNonNull(id, "transaction id");
        return txs.computeIfAbsent(id, i -> new Tx(i, seq.getAndIncrement()));
    }

    /**
     * Records that transaction {@code tx} read {@code key} and observed {@code observed}.
     *
     * @param observed the value read, {@code null} if the key had no value
     * @return this history
     */
    public History read(String tx, String key, @Nullable Object observed) {
        Objects.requireNonNull(key, "key");
        Tx t = tx(tx);
        synchronized (t) {
            t.ops.add(new Op(false, key, observed));
        }
        return this;
    }

    /**
     * Records that transaction {@code tx} wrote {@code value} to {@code key}.
     *
     * @param value a value no other transaction writes to this key
     * @return this history
     */
    public History write(String tx, String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value (a write of no value is not modelled: write a unique tombstone instead)");
        Tx t = tx(tx);
        synchronized (t) {
            t.ops.add(new Op(true, key, value));
        }
        return this;
    }

    /**
     * Records how transaction {@code tx} ended as its client saw it. {@link Outcome#UNKNOWN} may later be
     * replaced by what the client learned; a known outcome stays (a later UNKNOWN is ignored).
     *
     * @return this history
     * @throws IllegalStateException if the transaction was already recorded with the other known outcome
     */
    public History end(String tx, Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        Tx t = tx(tx);
        synchronized (t) {
            if (t.outcome == null || t.outcome == Outcome.UNKNOWN) {
                t.outcome = outcome;
            } else if (outcome != Outcome.UNKNOWN && outcome != t.outcome) {
                throw new IllegalStateException("transaction " + tx + " was recorded " + t.outcome + " and now "
                        + outcome + ": a client sees one outcome; record UNKNOWN when it cannot tell");
            }
        }
        return this;
    }

    /** Shorthand for {@code end(tx, Outcome.COMMITTED)}. */
    public History committed(String tx) {
        return end(tx, Outcome.COMMITTED);
    }

    /** Shorthand for {@code end(tx, Outcome.ABORTED)}. */
    public History aborted(String tx) {
        return end(tx, Outcome.ABORTED);
    }

    /** Shorthand for {@code end(tx, Outcome.UNKNOWN)}. */
    public History unknown(String tx) {
        return end(tx, Outcome.UNKNOWN);
    }

    /**
     * Appends {@code value} to {@code key}'s version order: a server installed it, after every value
     * installed to the key before. A key with at least one installed value is treated as fully logged:
     * every committed write to it is expected in its log.
     *
     * @return this history
     */
    public History installed(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        List<Object> log = installed.computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (log) {
            log.add(value);
        }
        return this;
    }

    /**
     * Declares that the install log is complete for every key, including keys with nothing logged: a
     * committed write missing from the log is then a partial commit even on such a key.
     *
     * @return this history
     */
    public History installLogComplete() {
        installLogComplete = true;
        return this;
    }

    /**
     * Records {@code key}'s committed value at the end of the test, read once nothing runs any more.
     *
     * @param value the value, {@code null} if the key has none
     * @return this history
     */
    public History finalState(String key, @Nullable Object value) {
        Objects.requireNonNull(key, "key");
        finalState.put(key, Optional.ofNullable(value));
        return this;
    }

    /**
     * Records {@code key}'s value before any transaction (set up with a seed, say). A read of it observes
     * the initial version; without this, the initial version is "no value" ({@code null}).
     *
     * @return this history
     */
    public History initial(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        initial.put(key, value);
        return this;
    }

    /** How many transactions the history holds. */
    public int size() {
        return txs.size();
    }

    /** The transactions, in the order they were first recorded. */
    List<TxView> transactions() {
        List<Tx> all = new ArrayList<>(txs.values());
        all.sort(Comparator.comparingLong(t -> t.seq));
        List<TxView> out = new ArrayList<>(all.size());
        for (Tx t : all) {
            synchronized (t) {
                out.add(new TxView(t.id, List.copyOf(t.ops), t.outcome == null ? Outcome.UNKNOWN : t.outcome));
            }
        }
        return out;
    }

    /** The keys' facts. */
    Facts facts() {
        Map<String, List<Object>> logs = new HashMap<>();
        installed.forEach((k, log) -> {
            synchronized (log) {
                logs.put(k, List.copyOf(log));
            }
        });
        return new Facts(logs, Map.copyOf(finalState), Map.copyOf(initial), installLogComplete);
    }
}
