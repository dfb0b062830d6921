package io.rpcc.server.internal.atomic;

import io.rpcc.server.atomic.ResourceManager;
import io.rpcc.server.atomic.Transaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One run of an atomic hop's service function at a node: its layer of writes, hooks and enlisted
 * resources on top of its {@link Participant}, kept if the function returns, dropped if it fails or
 * waits. What {@link Transaction#current()} returns during the run. Used by the thread that runs it.
 */
public final class HopAttempt implements Transaction {
    final Participant participant;
    final Map<VarState<?>, Object> varWrites = new LinkedHashMap<>();
    final Map<MapState<?, ?>, Map<Object, Object>> mapWrites = new LinkedHashMap<>();
    final List<Runnable> onCommit = new ArrayList<>(0);
    final List<Runnable> onAbort = new ArrayList<>(0);
    final List<ResourceManager> enlisted = new ArrayList<>(0);
    private @Nullable CompletableFuture<Void> waitingFor;
    private @Nullable String waitingLock;
    private volatile boolean finished;

    HopAttempt(Participant participant) {
        this.participant = participant;
    }

    /** The lock request this attempt waits for (it is parked), or null. */
    @Nullable CompletableFuture<Void> waitingFor() {
        return waitingFor;
    }

    void finish() {
        finished = true;
    }

    /**
     * Takes {@code mode} on the lock {@code lockOf} gives (asked again if that lock was retired), or
     * throws: {@link TxWait} if it must wait (after wounding later holders), {@link TransactionAborted}
     * if the transaction ended.
     */
    void lock(Supplier<TxLock> lockOf, int mode) {
        checkRunning();
        if (waitingFor != null) {
            throw new TxWait(Objects.requireNonNull(waitingLock));
        }
        while (true) {
            TxLock lock = lockOf.get();
            TxLock.Outcome o = lock.request(participant, mode);
            switch (o.kind()) {
                case GRANTED:
                    return;
                case RETIRED:
                    continue;
                case ENDED: {
                    TransactionAborted e = participant.endedError();
                    throw e != null ? e : new TransactionAborted(participant.key().toString(), "it ended");
                }
                case WAIT:
                default:
                    waitingFor = Objects.requireNonNull(o.granted());
                    waitingLock = lock.name();
                    participant.owner().wound(o.victims(), participant);
                    throw new TxWait(lock.name());
            }
        }
    }

    @SuppressWarnings("unchecked")
    <T> T read(VarState<T> v) {
        Object w = varWrites.get(v);
        if (w == null) {
            w = participant.varWrite(v);
        }
        return w == null ? v.committed() : (T) w;
    }

    void write(VarState<?> v, Object value) {
        varWrites.put(v, value);
    }

    /** The value of {@code k} this attempt sees, or null. */
    @SuppressWarnings("unchecked")
    <K, V> @Nullable V read(MapState<K, V> m, K k) {
        Map<Object, Object> layer = mapWrites.get(m);
        Object w = layer == null ? null : layer.get(k);
        if (w == null) {
            w = participant.mapWrite(m, k);
        }
        if (w == MapState.TOMBSTONE) {
            return null;
        }
        return w == null ? m.committedValue(k) : (V) w;
    }

    void write(MapState<?, ?> m, Object k, Object valueOrTombstone) {
        mapWrites.computeIfAbsent(m, x -> new LinkedHashMap<>()).put(k, valueOrTombstone);
    }

    /** Adds this attempt's and its participant's writes to {@code keys}, the committed keys of {@code m}. */
    void overlayKeys(MapState<?, ?> m, Set<Object> keys) {
        participant.overlayKeys(m, keys);
        Map<Object, Object> layer = mapWrites.get(m);
        if (layer != null) {
            MapState.overlay(layer, keys);
        }
    }

    private void checkRunning() {
        if (finished) {
            throw new IllegalStateException("the atomic hop attempt of transaction " + participant.key()
                    + " has ended: use Transaction, TxVar and TxMap only while the hop's service function runs,"
                    + " on its thread");
        }
    }

    @Override
    public String id() {
        return participant.key().toString();
    }

    @Override
    public void onCommit(Runnable hook) {
        checkRunning();
        onCommit.add(Objects.requireNonNull(hook, "hook"));
    }

    @Override
    public void onAbort(Runnable hook) {
        checkRunning();
        onAbort.add(Objects.requireNonNull(hook, "hook"));
    }

    @Override
    public void enlist(ResourceManager resource) {
        checkRunning();
        Objects.requireNonNull(resource, "resource");
        for (ResourceManager r : enlisted) {
            if (r == resource) {
                return;
            }
        }
        enlisted.add(resource);
    }

    @Override
    public String toString() {
        return "hop attempt of " + participant;
    }
}
