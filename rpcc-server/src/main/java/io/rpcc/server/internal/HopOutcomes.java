package io.rpcc.server.internal;

import io.rpcc.core.BranchId;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.HopFailure;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The outcome cache of a server (paper 3.9, idempotent retry): what the service function and the
 * chaining function of each hop that ran here produced, per originator, chain id, branch and hop
 * index, so that the same chain (same id and secret) sent again replays them instead of running
 * them: within the cache's window no side effect runs twice, and a retried chain moves fast up to
 * where it broke. An entry holds the service function's result or failure and, if the chaining
 * function ran here, the next hop it chose (with the state it made).
 *
 * <p>A hop is <em>claimed</em> when it arrives ({@link #claim}): the first arrival owns the entry
 * and records what its functions produce; an arrival of the same hop while the owner still runs
 * waits, holding no thread: it is handed back ({@code again}) when the owner is done, and replays
 * then. An owner that ends without a service outcome (cancelled, expired, abandoned, refused before
 * its function ran), or with a partial reply that could not reach its originator (sent by the
 * service function or by work it started: the hop did not complete), drops the entry, and its
 * waiters run the hop themselves.
 *
 * <p>An entry also keeps the partial replies its hop sent, with their numbers, and ends only when
 * nothing the hop started still runs: a replay sends them all again, and the originator delivers
 * those an earlier attempt lost and drops the others. A hop whose replies come to more than an
 * eighth of the byte bound (one that streams) keeps none, and its entry is dropped when it ends
 * (counted as an eviction): a retry runs it again. Replies of hops still running count in the bound
 * only from their end.
 *
 * <p>Bounds: entries are kept for {@code ttl} after their hop ended, at most {@code maxEntries} of
 * them and {@code maxBytes} (estimated, {@link OutcomeFootprint}) of values. Each entry counts in the
 * share of the peer that sent its request ({@code NodeTransport.peerOf}): one peer holds at most
 * {@code 1/}{@value #PEER_SHARE} of either bound (beyond it its own oldest go), and over a node-wide
 * bound the oldest entry of the peer holding the most goes first. So a peer's flood of cheap hops
 * evicts its own outcomes, never those of a peer holding fewer, which a retry of theirs still replays.
 * Expired entries are dropped when they are met or when a later hop ends here. The per-hop cost for
 * chains that are never retried: a key and an entry, one map insertion, one place in a queue, the
 * footprint estimate; the entry's own lock, taken once by its owner, and its peer's queue's.
 */
final class HopOutcomes {
    /** What the cache keeps, and how long. */
    record Limits(int maxEntries, long maxBytes, Duration ttl) {
        /** The defaults: 10,000 entries, 64 MiB, 60 s. */
        static final Limits DEFAULT = new Limits(10_000, 64L << 20, Duration.ofSeconds(60));

        boolean off() {
            return maxEntries == 0 || maxBytes == 0 || ttl.isZero();
        }
    }

    /** One hop of one chain. */
    private record Key(String origin, long chainId, BranchId branch, int hop) {
        ChainRef chain() {
            return new ChainRef(origin, chainId);
        }
    }

    /** A chain, as its originator names it. */
    private record ChainRef(String origin, long chainId) {
    }

    /** One peer's outcomes may take at most this fraction (1/n) of each bound. */
    static final int PEER_SHARE = 2;

    /** The outcomes kept for the requests of one peer, oldest first. */
    private static final class PeerShare {
        // guarded by this: an array queue under its lock (a ConcurrentLinkedQueue's remove(head) took
        // about 10 % of a plain call's CPU here once thousands of outcomes were kept)
        private final ArrayDeque<Outcome> order = new ArrayDeque<>();
        final AtomicInteger kept = new AtomicInteger();
        final AtomicLong bytes = new AtomicLong();

        synchronized void add(Outcome o) {
            order.addLast(o);
        }

        synchronized boolean isEmpty() {
            return order.isEmpty();
        }

        synchronized Outcome peek() {
            return order.peekFirst();
        }

        synchronized Outcome poll() {
            return order.pollFirst();
        }

        /** Removes {@code head} if it is still the oldest (another thread may have taken it). */
        synchronized boolean removeHead(Outcome head) {
            if (order.peekFirst() != head) {
                return false;
            }
            order.pollFirst();
            return true;
        }
    }

    /** One hop's replies may take at most this fraction (1/n) of the byte bound (one hop cannot empty the cache). */
    private static final long REPLY_SHARE = 8;

    /** What keeping one partial reply costs beyond its value, in the byte estimate. */
    private static final long KEPT_REPLY_BYTES = 16;

    /** A partial reply a hop sent, with its number among the hop's replies: sent again by a replay. */
    record KeptReply(long seq, Object value, long size) {
    }

    /** The claim of an arrival that waits for the hop's first run to end. */
    static final Outcome WAITING = new Outcome(null, null, null, 0, null);

    /** What one hop produced at this node, as far as it got. */
    static final class Outcome {
        private final Key key;
        private final String peer;
        /** The share it counts in, once kept (set under the share's map entry). */
        private volatile PeerShare share;
        private final ChainSecret secret;
        private final String serviceFunction;
        /** The most bytes of partial replies kept; beyond them the outcome cannot be replayed. */
        private final long maxReplyBytes;
        // written by the owner's thread before done is set (under the lock), read by replays after
        private boolean served;
        private Object result;
        private HopFailure failure;
        private NextHop next;
        // guarded by this
        private boolean done;
        private boolean dropped;
        private List<ChainRequest> waiters;
        private List<KeptReply> replies;
        private long replyBytes;
        /** More replies than {@link #maxReplyBytes}: dropped, and the entry with them when the hop ends. */
        private boolean repliesOverflowed;
        /**
         * A reply of the hop could not reach its originator (a retryable failure of the hop, even if its
         * service function returned): the hop did not complete, and its entry is dropped when it ends.
         */
        private boolean replyNotSent;
        private long expiresNanos;
        private long bytes;

        private Outcome(Key key, ChainSecret secret, String serviceFunction, long maxReplyBytes, String peer) {
            this.key = key;
            this.peer = peer;
            this.secret = secret;
            this.serviceFunction = serviceFunction;
            this.maxReplyBytes = maxReplyBytes;
        }

        /**
         * Whether this claim replays a hop that ran before (else the claimant runs the hop and records
         * what it produces); fixed for a claimant from its claim on.
         */
        synchronized boolean replays() {
            return done;
        }

        /** The owner: the service function returned {@code value}. */
        void served(Object value) {
            result = value;
            served = true;
        }

        /** The owner: the service function failed with {@code f} (kept without its cause). */
        void failed(HopFailure f) {
            failure = new HopFailure(f.code(), f.exceptionName(), f.getMessage(), f.details(), f.fields(), null);
            served = true;
        }

        /**
         * The owner: the hop sends partial reply number {@code seq}, {@code value} (from any thread);
         * returns whether it is kept (not past the hop's share of the byte bound, not after the end).
         */
        synchronized boolean replied(long seq, Object value) {
            if (done || dropped || repliesOverflowed) {
                return false; // done: the hop's first run ended before it was quiet (see ended)
            }
            long size;
            try {
                size = OutcomeFootprint.of(value) + KEPT_REPLY_BYTES;
            } catch (RuntimeException e) { // a collection changing under the estimate, say: not kept
                size = Long.MAX_VALUE / 2;
            }
            replyBytes += size;
            if (replyBytes > maxReplyBytes) { // a hop that streams: keeping its replies would hold them all
                repliesOverflowed = true;
                replies = null;
                return false;
            }
            if (replies == null) {
                replies = new ArrayList<>(4);
            }
            replies.add(new KeptReply(seq, value, size));
            return true;
        }

        /** The owner: reply number {@code seq}, kept by {@link #replied}, could not be sent after all. */
        synchronized void unreplied(long seq) {
            if (done || dropped || replies == null) {
                return;
            }
            for (int i = replies.size() - 1; i >= 0; i--) {
                if (replies.get(i).seq() == seq) {
                    replyBytes -= replies.remove(i).size();
                    return;
                }
            }
        }

        /**
         * The owner: a reply of the hop could not reach its originator (from any thread: a task started
         * through the hop's context too); the hop did not complete, so its outcome is not kept when it
         * ends and a retry runs it again (a replay could not send that reply: it was never kept).
         */
        synchronized void replyNotSent() {
            replyNotSent = true;
        }

        /** A replay: the partial replies the hop sent, in the order they were produced. */
        synchronized List<KeptReply> replies() {
            return replies == null ? List.of() : List.copyOf(replies);
        }

        /** The owner: the chaining function chose {@code hop}. */
        void chained(NextHop hop) {
            next = hop;
        }

        /** A replay: the service function's result; throws its failure. */
        Object result() {
            if (failure != null) {
                throw failure;
            }
            return result;
        }

        /** A replay: the next hop the chaining function chose, or {@code null} if it did not run here. */
        NextHop next() {
            return next;
        }
    }

    private final Limits limits;
    private final long ttlNanos;
    private final Set<String> idempotent;
    private final Consumer<ChainRequest> again;
    private final ConcurrentHashMap<Key, Outcome> entries = new ConcurrentHashMap<>();
    /**
     * The keys of the kept outcomes of each chain, for {@link #forgetChain} (a cancelled chain is never
     * replayed): its one {@link Key} (most chains run one hop here), else a {@code HashSet<Key>} of
     * them, changed only inside the map's atomic updates of its entry.
     */
    private final ConcurrentHashMap<ChainRef, Object> byChain = new ConcurrentHashMap<>();
    /** The kept outcomes, by the peer that sent their requests. */
    private final ConcurrentHashMap<String, PeerShare> peers = new ConcurrentHashMap<>();
    private final AtomicInteger kept = new AtomicInteger();
    private final AtomicLong keptBytes = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicLong attached = new AtomicLong();

    /**
     * A cache within {@code limits}, skipping the service functions named in {@code idempotent};
     * {@code again} handles anew a request that waited for its hop's first run.
     */
    HopOutcomes(Limits limits, Set<String> idempotent, Consumer<ChainRequest> again) {
        this.again = again;
        this.limits = limits;
        this.ttlNanos = limits.ttl().toNanos();
        this.idempotent = Set.copyOf(idempotent);
    }

    /**
     * Claims the hop of {@code request} (whose service function is known here) arriving at
     * {@code nowNanos}: {@code null} if it is not cached (the cache is off, the function is
     * idempotent, or the entry under its key is another chain's); {@link #WAITING} if the hop's
     * first run is still running here: the request is handed to {@code again} when it ends; else
     * the entry, which the claimant replays ({@link Outcome#replays()}) or owns.
     */
    Outcome claim(ChainRequest request, long nowNanos) {
        return claim(request, nowNanos, NodeTransport.LOCAL_PEER);
    }

    /** As {@link #claim(ChainRequest, long)}, for a request {@code peer} sent: its outcome counts in that peer's share. */
    Outcome claim(ChainRequest request, long nowNanos, String peer) {
        ChainHeader h = request.header();
        if (limits.off() || idempotent.contains(h.serviceFunction())) {
            return null;
        }
        Key key = new Key(h.origin(), h.chainId(), h.branch(), h.hop());
        Outcome fresh = new Outcome(key, h.secret(), h.serviceFunction(), limits.maxBytes() / REPLY_SHARE, peer);
        for (;;) {
            Outcome o = entries.putIfAbsent(key, fresh);
            if (o == null) {
                misses.incrementAndGet();
                return fresh;
            }
            if (!o.secret.matches(h.secret()) || !o.serviceFunction.equals(h.serviceFunction())) {
                misses.incrementAndGet(); // another chain of that originator and id (it restarted): run, uncached
                return null;
            }
            synchronized (o) {
                if (o.dropped) {
                    entries.remove(key, o);
                    continue;
                }
                if (!o.done) {
                    if (o.waiters == null) {
                        o.waiters = new ArrayList<>(2);
                    }
                    o.waiters.add(request);
                    attached.incrementAndGet();
                    return WAITING;
                }
                if (nowNanos - o.expiresNanos < 0) {
                    hits.incrementAndGet();
                    return o;
                }
            }
            if (entries.replace(key, o, fresh)) { // expired: this arrival runs the hop
                misses.incrementAndGet();
                return fresh;
            }
        }
    }

    /**
     * The run that claimed {@code o} ended — its functions returned and nothing it started runs or
     * sends replies any more — at {@code nowNanos}: if it owned the entry, the entry is
     * kept if it has a service outcome and every reply of the hop got out (and older ones evicted
     * beyond the bounds), else dropped; the
     * arrivals waiting for it are handed back. Nothing for a replay.
     */
    void ended(Outcome o, long nowNanos) {
        ended(o, nowNanos, false);
    }

    /**
     * As {@link #ended(Outcome, long)}; a hop whose chain was {@code cancelled} keeps nothing: a
     * cancelled chain is never sent again, so its outcome would only take room.
     */
    void ended(Outcome o, long nowNanos, boolean cancelled) {
        if (o == null || o == WAITING) {
            return;
        }
        List<ChainRequest> waiting;
        boolean keep;
        synchronized (o) {
            if (o.done || o.dropped) {
                return;
            }
            keep = o.served && !o.repliesOverflowed && !o.replyNotSent && !cancelled;
            if (o.served && o.repliesOverflowed) {
                evictions.incrementAndGet(); // its replies went over the byte bound: a retry runs the hop again
            }
            if (keep) {
                o.bytes = OutcomeFootprint.of(o.result) + OutcomeFootprint.of(o.next) + OutcomeFootprint.OPAQUE
                        + o.replyBytes;
                o.expiresNanos = nowNanos + ttlNanos;
                o.done = true;
            } else {
                o.dropped = true;
            }
            waiting = o.waiters;
            o.waiters = null;
        }
        if (keep) {
            PeerShare share = peers.compute(o.peer, (p, sh) -> { // (atomic with the removal of an empty share)
                PeerShare mine = sh != null ? sh : new PeerShare();
                o.share = mine;
                mine.add(o);
                mine.kept.incrementAndGet();
                mine.bytes.addAndGet(o.bytes);
                return mine;
            });
            kept.incrementAndGet();
            keptBytes.addAndGet(o.bytes);
            byChain.merge(o.key.chain(), o.key, HopOutcomes::withKey);
            evict(nowNanos, share);
        } else {
            entries.remove(o.key, o);
        }
        if (waiting != null) {
            waiting.forEach(again);
        }
    }

    /**
     * Drops the kept outcomes of chain {@code chainId} of {@code origin}, which was cancelled: it is
     * never sent again. Outcomes of its hops still running are dropped when they end (see
     * {@link #ended(Outcome, long, boolean)}).
     */
    void forgetChain(String origin, long chainId) {
        Object keys = byChain.remove(new ChainRef(origin, chainId));
        if (keys == null) {
            return;
        }
        for (Key k : keysOf(keys)) {
            Outcome o = entries.get(k);
            if (o != null) {
                drop(o, false);
            }
        }
    }

    /**
     * Drops kept outcome {@code o} (unless it was dropped already) and frees what it holds; it leaves
     * its peer's queue when it reaches its head. Counted as an eviction if {@code evicted}.
     */
    private void drop(Outcome o, boolean evicted) {
        synchronized (o) {
            if (!o.done || o.dropped) {
                return;
            }
            o.dropped = true;
            o.result = null;
            o.next = null;
            o.replies = null;
        }
        kept.decrementAndGet();
        keptBytes.addAndGet(-o.bytes);
        PeerShare share = o.share;
        if (share != null) {
            share.kept.decrementAndGet();
            share.bytes.addAndGet(-o.bytes);
        }
        entries.remove(o.key, o);
        byChain.computeIfPresent(o.key.chain(), (c, keys) -> withoutKey(keys, o.key));
        if (evicted) {
            evictions.incrementAndGet();
        }
    }

    /** A chain's keys in {@link #byChain} ({@code keys}) with {@code key} added (inside the map's update of the entry). */
    private static Object withKey(Object keys, Object key) {
        if (keys instanceof Key one) {
            if (one.equals(key)) {
                return one;
            }
            Set<Key> set = new HashSet<>(4);
            set.add(one);
            set.add((Key) key);
            return set;
        }
        @SuppressWarnings("unchecked")
        Set<Key> set = (Set<Key>) keys;
        set.add((Key) key);
        return set;
    }

    /** A chain's keys in {@link #byChain} without {@code key} ({@code null}: none left), inside the map's update. */
    private static Object withoutKey(Object keys, Key key) {
        if (keys instanceof Key one) {
            return one.equals(key) ? null : one;
        }
        @SuppressWarnings("unchecked")
        Set<Key> set = (Set<Key>) keys;
        set.remove(key);
        return set.isEmpty() ? null : set;
    }

    /** A chain's keys, removed from {@link #byChain} (no update changes them any more). */
    @SuppressWarnings("unchecked")
    private static Set<Key> keysOf(Object keys) {
        return keys instanceof Key one ? Set.of(one) : (Set<Key>) keys;
    }

    /** Drops the expired entries now (the node's periodic sweep: memory comes back without new traffic). */
    void expire(long nowNanos) {
        for (var e : peers.entrySet()) {
            PeerShare share = e.getValue();
            dropHeads(share, nowNanos, false);
            peers.computeIfPresent(e.getKey(), (p, sh) -> sh.isEmpty() ? null : sh);
        }
        evictOver(nowNanos);
    }

    /**
     * Drops the oldest entries of {@code share}, the share of the peer whose outcome was just kept,
     * while they are expired or the share is over its part of a bound; then, while the cache is over
     * a bound, the oldest of the peer holding the most.
     */
    private void evict(long nowNanos, PeerShare share) {
        dropHeads(share, nowNanos, true);
        evictOver(nowNanos);
    }

    private void evictOver(long nowNanos) {
        while (kept.get() > limits.maxEntries() || keptBytes.get() > limits.maxBytes()) {
            boolean byBytes = keptBytes.get() > limits.maxBytes();
            PeerShare most = null;
            for (PeerShare sh : peers.values()) {
                if (!sh.isEmpty() && (most == null || (byBytes ? sh.bytes.get() > most.bytes.get()
                        : sh.kept.get() > most.kept.get()))) {
                    most = sh;
                }
            }
            if (most == null || !dropHead(most, true)) {
                return;
            }
        }
    }

    /** Drops the head of {@code share} while it is gone, expired or (if {@code overShare} is checked) over the share. */
    private void dropHeads(PeerShare share, long nowNanos, boolean checkShare) {
        for (Outcome head; (head = share.peek()) != null; ) {
            boolean gone;
            synchronized (head) {
                gone = head.dropped;
            }
            boolean over = gone || nowNanos - head.expiresNanos >= 0 || checkShare
                    && (share.kept.get() > Math.max(1, limits.maxEntries() / PEER_SHARE)
                    || share.bytes.get() > limits.maxBytes() / PEER_SHARE);
            if (!over) {
                return;
            }
            if (share.removeHead(head) && !gone) {
                drop(head, true);
            }
        }
    }

    /** Drops the oldest live entry of {@code share}; {@code false} if it has none. */
    private boolean dropHead(PeerShare share, boolean evicted) {
        for (Outcome head; (head = share.poll()) != null; ) {
            boolean gone;
            synchronized (head) {
                gone = head.dropped;
            }
            if (!gone) {
                drop(head, evicted);
                return true;
            }
        }
        return false;
    }

    /** Arrivals that replayed a cached outcome. */
    long hits() {
        return hits.get();
    }

    /** Arrivals of cached service functions that found no outcome to replay (they ran the hop). */
    long misses() {
        return misses.get();
    }

    /** Outcomes dropped: expired, or beyond the entry or byte bound. */
    long evictions() {
        return evictions.get();
    }

    /** Arrivals that waited for the first run of their hop, still running here. */
    long attached() {
        return attached.get();
    }

    /** Outcomes kept now. */
    int size() {
        return kept.get();
    }

    /** Estimated bytes of the outcomes kept now. */
    long bytes() {
        return keptBytes.get();
    }
}
