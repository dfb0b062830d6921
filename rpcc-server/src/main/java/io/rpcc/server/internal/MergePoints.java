package io.rpcc.server.internal;

import io.rpcc.core.BranchId;
import io.rpcc.core.BranchOutcome;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopPath;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.chain.NextHopDecision;
import io.rpcc.core.internal.wire.CarriedTimings;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits and merges (paper 3.10), at the node that splits a chain and at the merge host.
 *
 * <p>A split sends each branch's first hop with the branch's id ({@code parent.child(i)}, from 1),
 * its share of the hops the chain has left as its hop limit ({@link NextHopDecision#branchLimits}),
 * a merge point ({@link ReturnPoint} with the number of branches) pushed onto the return stack and a
 * share of the hop's credit, and an <em>opening</em> ({@link HopKind#SPLIT_OPENING}) to the merge host carrying the
 * merge function, its state, the rest of the credit and the stack below the merge point. A branch
 * that ends sends its outcome there: its result ({@link HopKind#BRANCH_OUTCOME}) or its failure
 * ({@link HopKind#BRANCH_FAILURE}: params {@code [code, exceptionName, message, host, hop, path, details]},
 * built-in types only), with its credit.
 *
 * <p>At the merge host this table keeps, per split (chain, parent branch, number of the splitting
 * hop), what has arrived, holding no thread. When the opening and every branch's outcome are in, the
 * merge runs as a hop of its own ({@link Ready}, {@link HopKind#MERGED}: never on the wire) on the
 * parent branch with all the credit and, as its hop limit, the hops the branches left unused
 * ({@link NextHopDecision#mergedLimit}): the merge function gets the {@link BranchOutcome}s in branch
 * order, or, with the default merge, the chain goes on with the list of results, or fails with the
 * first failed branch's failure ({@link FirstFailure}). A split that is not complete when its
 * timeout passes (the stale-branch timeout, default 1 minute, or the chain's budget plus
 * {@link ChainTrails#GRACE_NANOS} if earlier) is dropped with its outcomes, logged and counted, and
 * outcomes that arrive for it later are dropped and counted too; the chain, missing that credit,
 * ends at its originator by its timeout.
 */
final class MergePoints {
    /** How long a split waits for its branches by default. */
    static final Duration DEFAULT_STALE_TIMEOUT = Duration.ofMinutes(1);
    /** The most splits waiting at once; beyond it the oldest are dropped. */
    static final int MAX_ENTRIES = 1 << 16;

    private static final Logger log = LoggerFactory.getLogger(MergePoints.class);

    /** A split, at its merge host. */
    private record Key(String origin, long chainId, int attempt, BranchId parent, long splitHop) {
    }

    /** What has arrived of one split. */
    private static final class Merge {
        final int branches;
        final long startNanos;
        ChainRequest open;
        final ChainRequest[] outcomes;
        final long[] heartbeatDueNanos; // per arrived outcome whose chain sends heartbeats
        int arrived;
        Credit credit = Credit.ZERO;
        boolean dropped;

        Merge(int branches, long startNanos) {
            this.branches = branches;
            this.startNanos = startNanos;
            this.outcomes = new ChainRequest[branches];
            this.heartbeatDueNanos = new long[branches];
        }
    }

    /** What an arrival made of its split. */
    sealed interface Arrival permits Waiting, Ready, FirstFailure {
    }

    /** The split waits for more (or the arrival was dropped); its credit is held (or lost). */
    record Waiting() implements Arrival {
        static final Waiting INSTANCE = new Waiting();
    }

    /** Every outcome is in: run {@code request}, the merge, as a hop of its own. */
    record Ready(ChainRequest request) implements Arrival {
    }

    /**
     * Every outcome is in, the merge is the default one and a branch failed: the chain (on the parent
     * branch, {@code header}, with all the credit) fails with that branch's failure.
     */
    record FirstFailure(ChainHeader header, LocatedFailure failure) implements Arrival {
    }

    /** One request a split sends: to {@code server} (at {@code address}, or by its name if {@code null}). */
    record Send(String server, InetSocketAddress address, ChainRequest request, Credit credit,
                boolean opening) {
    }

    private final String nodeName;
    private final long staleNanos;
    private final AtomicLong dropped = new AtomicLong();
    private final LinkedHashMap<Key, Merge> entries = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Merge> eldest) {
            if (size() <= MAX_ENTRIES) {
                return false;
            }
            if (!eldest.getValue().dropped) {
                drop(eldest.getKey(), eldest.getValue(), "the table is full (" + MAX_ENTRIES + " splits)");
            }
            return true;
        }
    };

    /** The merges waiting at node {@code nodeName}, each for at most {@code staleTimeout}. */
    MergePoints(String nodeName, Duration staleTimeout) {
        this.nodeName = nodeName;
        this.staleNanos = staleTimeout.toNanos();
    }

    /** Whether {@code serviceFunction} is one of a merge host's ({@link HopKind#arrivesAtMerge()}). */
    static boolean arrives(String serviceFunction) {
        return HopKind.of(serviceFunction).arrivesAtMerge();
    }

    /** Branch outcomes dropped here: of splits that went stale, or that matched no split. */
    long droppedOutcomes() {
        return dropped.get();
    }

    /** Splits waiting here for outcomes (test hook). */
    synchronized int waiting() {
        return (int) entries.values().stream().filter(m -> !m.dropped).count();
    }

    // ---- the splitting node

    /**
     * The requests that carry out {@code split} after {@code hop} (its header, path and timings so
     * far, with {@code console}, the hop's console now): the opening for {@code mergeHost} (at
     * {@code mergeAddress}), with {@code metadata.get(0)}, and branch {@code i}'s first hop (from 0),
     * with {@code metadata.get(i + 1)};
     * {@code credit} is divided among them exactly.
     */
    static List<Send> split(NextHopDecision.StartSplit split, HopState hop, List<ConsoleLine> console,
                            NodeAddress mergeHost, InetSocketAddress mergeAddress, Credit credit, List<Metadata> metadata) {
        ChainHeader h = hop.header();
        List<String> path = hop.path();
        List<HopTiming> timings = hop.timings();
        List<NextHop.Call> calls = split.split().branches();
        int n = calls.size();
        int k = 64 - Long.numberOfLeadingZeros(n); // 2^k > n: n branch shares and the opening's
        if (credit.exponent() + k > Credit.MAX_EXPONENT) {
            throw new HopFailure(ChainErrorCode.SUB_CHAIN, "the chain's credit cannot be "
                    + "divided among " + n + " more branches after hop " + h.hop() + ": splits nest too deep");
        }
        Credit share = Credit.of(credit.numerator(), credit.exponent() + k);
        Credit openShare = Credit.of(credit.numerator().multiply(BigInteger.ONE.shiftLeft(k)
                .subtract(BigInteger.valueOf(n))), credit.exponent() + k);
        List<ReturnPoint> stack = new ArrayList<>(h.returnStack());
        stack.add(ReturnPoint.merge(mergeHost, h.hop(), n));
        List<Send> sends = new ArrayList<>(n + 1);
        ChainHeader open = h.onward(new ChainSoFar(h.hop(), path, console, timings, metadata.getFirst()), HopKind.SPLIT_OPENING.wireName(), split.mergeFunction(), openShare, split.budgetNanos()).with(split.mergeFunction(), stack);
        sends.add(new Send(mergeHost.node(), mergeAddress, new ChainRequest(open, null, split.split().state(), null),
                openShare, true));
        for (int i = 0; i < n; i++) {
            NextHop.Call call = calls.get(i);
            ChainingFunctionSource cf = split.branchFunctions().get(i);
            ChainHeader bh = NextHopDecision.withMaxHops(h.onward(new ChainSoFar(split.hop(), path, console, timings, metadata.get(i + 1)), call.serviceFunction(), cf, share, split.budgetNanos()).with(cf, stack).withBranch(h.branch().child(i + 1, n)), split.branchMaxHops().get(i));
            sends.add(new Send(call.server(), null, new ChainRequest(bh, call.params(), call.state(), null), share,
                    false));
        }
        return sends;
    }

    // ---- the end of a branch

    /**
     * The request that takes the failure of the hop of {@code h} ({@code located}, with
     * {@code credit}) to the merge host of the split the hop's branch belongs to,
     * the innermost point of {@code levels} ({@link SubChainFailures#levelsOut}), as a failed outcome;
     * {@code null} if {@code h} is on no branch (a faulty stack). The failure's message names the branch.
     */
    static ChainRequest failedOutcome(ChainHeader h, List<ReturnPoint> levels, LocatedFailure located, Credit credit) {
        ChainFailure failure = located.failure();
        ReturnPoint merge = levels.getLast();
        if (!merge.isMerge() || h.branch().isRoot()) {
            return null;
        }
        String message = failure.message() == null ? "" : failure.message();
        if (!message.startsWith("[branch ")) {
            message = "[branch " + h.branch() + " of " + merge.branches() + "] " + message;
        }
        List<Object> params = new ArrayList<>(List.of(located.code().number(), failure.exceptionName(), message,
                failure.host(), failure.hop()));
        params.add(new ArrayList<>(failure.path()));
        params.add(new ArrayList<>(failure.details()));
        ChainHeader out = h.onward(new ChainSoFar(h.hop(), failure.path(), failure.console(), failure.timings(), h.metadata()), HopKind.BRANCH_FAILURE.wireName(), ChainingFunctionSource.NONE, credit, h.budgetNanos())
                .with(ChainingFunctionSource.NONE, levels);
        return new ChainRequest(out, params, ChainState.empty(), null);
    }

    // ---- the merge host

    /**
     * {@code request} (an opening, or a branch's outcome) arrived here with {@code credit}, which
     * this table now holds: returns what the split makes of it.
     */
    Arrival arrive(ChainRequest request, Credit credit, long nowNanos) {
        ChainHeader h = request.header();
        List<ReturnPoint> stack = h.returnStack();
        ReturnPoint point = stack.isEmpty() ? null : stack.getLast();
        boolean opening = HopKind.of(h.serviceFunction()) == HopKind.SPLIT_OPENING;
        if (point == null || !point.isMerge() || !point.node().node().equals(nodeName)
                || (!opening && (h.branch().isRoot() || h.branch().indexes().getLast() < 1
                || h.branch().indexes().getLast() > point.branches()))) {
            return refuse(h, "it names no split merging at '" + nodeName + "' (return stack " + stack + ", branch "
                    + h.branch() + ")");
        }
        Key key = new Key(h.origin(), h.chainId(), h.attempt(), opening ? h.branch() : h.branch().parent(),
                point.continuation());
        Merge done;
        synchronized (this) {
            Merge m = entries.get(key);
            if (m == null) {
                m = new Merge(point.branches(), nowNanos);
                entries.put(key, m);
                expireLater(key, m, h.budgetNanos());
            }
            if (m.dropped) {
                if (!opening) {
                    dropped.incrementAndGet();
                }
                log.warn("node '{}' dropped {} of chain {}#{} for the split after hop {}: that split went stale and "
                        + "was dropped before", nodeName, what(h), h.origin(), h.chainId(), point.continuation());
                return Waiting.INSTANCE;
            }
            if (m.branches != point.branches()) {
                return refuse(h, "the split counts " + m.branches + " branches, this says " + point.branches());
            }
            if (opening) {
                if (m.open != null) {
                    return refuse(h, "the split was opened twice");
                }
                m.open = request;
            } else {
                int i = h.branch().indexes().getLast() - 1;
                if (m.outcomes[i] != null) {
                    return refuse(h, "branch " + h.branch() + " ended twice");
                }
                m.outcomes[i] = request;
                m.heartbeatDueNanos[i] = nowNanos + Math.max(0, h.heartbeat().remainingNanos());
                m.arrived++;
            }
            m.credit = m.credit.plus(credit);
            if (m.open == null || m.arrived < m.branches) {
                return Waiting.INSTANCE;
            }
            entries.remove(key);
            done = m;
        }
        return merged(done, h, nowNanos);
    }

    /** The merge of the complete split {@code m}; {@code last} is the request that completed it. */
    private Arrival merged(Merge m, ChainHeader last, long nowNanos) {
        ChainHeader open = m.open.header();
        long visitedAtOpen = HopPath.visited(open.path());
        int prefixConsole = open.console().size();
        List<String> path = new ArrayList<>(open.path());
        List<ConsoleLine> console = new ArrayList<>(open.console());
        List<HopTiming> timings = new ArrayList<>(open.timings());
        List<BranchOutcome> outcomes = new ArrayList<>(m.branches);
        int hop = open.hop();
        long unused = 0; // of the branches' shares of the chain's hops: the chain goes on with them
        int firstFailed = -1;
        for (int i = 0; i < m.branches; i++) {
            ChainRequest r = m.outcomes[i];
            ChainHeader b = r.header();
            hop = Math.max(hop, b.hop());
            unused += Math.max(0, (long) b.maxHops() - b.hop());
            path.addAll(HopPath.after(b.path(), visitedAtOpen));
            console.addAll(tail(b.console(), prefixConsole));
            timings.addAll(CarriedTimings.since(b.timings(), open.timings()));
            ChainFailure failure = null;
            ChainErrorCode code = null;
            if (HopKind.of(b.serviceFunction()) == HopKind.BRANCH_FAILURE) {
                List<?> f = r.params() instanceof List<?> l && l.size() == 7 ? l : null;
                code = f == null ? ChainErrorCode.INTERNAL : ChainErrorCode.forNumber(((Number) f.get(0)).intValue());
                failure = f == null ? LocatedFailure.detected(code, "[branch " + b.branch() + "] failed ("
                        + "its failure could not be read at '" + nodeName + "')", nodeName, b.hop(), b.path()).failure()
                        : new ChainFailure((String) f.get(1), (String) f.get(2), (String) f.get(3),
                        ((Number) f.get(4)).intValue(), strings(f.get(5)), strings(f.get(6)), List.of(), List.of());
            } else if (r.decodeError() != null) {
                code = r.decodeError().code();
                failure = new ChainFailure(r.decodeError().exceptionName(), "[branch " + b.branch() + "] its result "
                        + "could not be read at merge host '" + nodeName + "': " + r.decodeError().getMessage(),
                        nodeName, b.hop(), b.path(), r.decodeError().details(), List.of(), List.of(),
                        r.decodeError().fields());
            }
            if (failure == null) {
                outcomes.add(BranchOutcome.success(i + 1, b.branch(), r.params()));
            } else {
                outcomes.add(BranchOutcome.failure(i + 1, b.branch(), ChainErrors.toException(code, failure)));
                if (firstFailed < 0) {
                    firstFailed = i;
                }
            }
        }
        ChainingFunctionSource mergeFunction = open.chainingFunction();
        List<ReturnPoint> below = open.returnStack().subList(0, open.returnStack().size() - 1);
        timings.add(new HopTiming(hop, nodeName, HopKind.BRANCH_OUTCOME.wireName(), nowNanos - m.startNanos, 0, 0, 0,
                nodeName));
        ChainHeader merged = NextHopDecision.withMaxHops(open.onward(new ChainSoFar(hop, HopPath.bounded(path), console,
                CarriedTimings.bounded(timings), open.metadata()), HopKind.MERGED.wireName(), mergeFunction, m.credit, last.budgetNanos()).with(mergeFunction, below), NextHopDecision.mergedLimit(hop, unused));
        if (last.heartbeat().isOn()) { // the parent branch resumes: its first heartbeat is due at once
            merged = merged.withHeartbeat(new HeartbeatBudget(last.heartbeat().intervalNanos(), 0));
        }
        if (mergeFunction.isNone()) {
            if (firstFailed >= 0) {
                BranchOutcome failed = outcomes.get(firstFailed);
                ChainFailure f = failed.failure().failure();
                ChainRequest r = m.outcomes[firstFailed];
                return new FirstFailure(merged, new LocatedFailure(code(r), new ChainFailure(f.exceptionName(),
                        f.message(), f.host(), f.hop(), f.path(), f.details(), r.header().console(), r.header().timings(),
                        f.fields())));
            }
            List<Object> values = new ArrayList<>(m.branches);
            outcomes.forEach(o -> values.add(o.value()));
            return new Ready(new ChainRequest(merged, values, m.open.state(), null));
        }
        return new Ready(new ChainRequest(merged, List.copyOf(outcomes), m.open.state(), null));
    }

    /** The error code of the failed outcome {@code r}. */
    private static ChainErrorCode code(ChainRequest r) {
        if (r.decodeError() != null) {
            return r.decodeError().code();
        }
        return r.params() instanceof List<?> l && !l.isEmpty() && l.getFirst() instanceof Number n
                ? ChainErrorCode.forNumber(n.intValue()) : ChainErrorCode.INTERNAL;
    }

    /**
     * The merge host heartbeats for the branches that have arrived (paper 3.10): hands {@code send}
     * the header of each arrived outcome whose heartbeat is due at {@code nowNanos} (outside this
     * table's lock), and starts its next interval.
     */
    void sendDueHeartbeats(long nowNanos, Consumer<ChainHeader> send) {
        List<ChainHeader> due = new ArrayList<>();
        synchronized (this) {
            for (Merge m : entries.values()) {
                for (int i = 0; i < m.branches && !m.dropped; i++) {
                    ChainRequest r = m.outcomes[i];
                    if (r != null && r.header().heartbeat().isOn() && nowNanos - m.heartbeatDueNanos[i] >= 0) {
                        m.heartbeatDueNanos[i] = nowNanos + r.header().heartbeat().intervalNanos();
                        due.add(r.header());
                    }
                }
            }
        }
        due.forEach(send);
    }

    /** Forgets every split of chain {@code origin#chainId} waiting here (it was cancelled). */
    synchronized void forgetChain(String origin, long chainId) {
        entries.keySet().removeIf(k -> k.chainId() == chainId && k.origin().equals(origin));
    }

    private Arrival refuse(ChainHeader h, String why) {
        dropped.incrementAndGet();
        log.warn("node '{}' dropped {} of chain {}#{}: {}; the node that sent it is faulty", nodeName, what(h),
                h.origin(), h.chainId(), why);
        return Waiting.INSTANCE;
    }

    /** Forgets {@code m} when its time is up, unless it completed first. */
    private void expireLater(Key key, Merge m, long budgetNanos) {
        long keep = budgetNanos == ChainHeader.NO_DEADLINE ? staleNanos
                : Math.min(staleNanos, Math.max(budgetNanos, 0) + ChainTrails.GRACE_NANOS);
        CompletableFuture.delayedExecutor(keep, TimeUnit.NANOSECONDS).execute(() -> {
            synchronized (this) {
                if (entries.get(key) != m) {
                    return;
                }
                if (m.dropped) {
                    entries.remove(key); // the tombstone has done its work
                    return;
                }
                drop(key, m, "it waited " + TimeUnit.NANOSECONDS.toMillis(keep) + " ms");
                expireLater(key, m, ChainHeader.NO_DEADLINE); // late outcomes are dropped until then
            }
        });
    }

    /** Drops the waiting split {@code m}: its outcomes and credit are lost. Called holding this. */
    private void drop(Key key, Merge m, String why) {
        m.dropped = true;
        dropped.addAndGet(m.arrived);
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < m.branches; i++) {
            if (m.outcomes[i] == null) {
                missing.add(i + 1);
            }
        }
        log.warn("node '{}' dropped the split of chain {}#{} after hop {} (branch {}): {}, with {} of {} branch outcomes"
                        + "{} (missing: branches {}); the chain will end at its originator by its timeout. A branch "
                        + "that crashed or is slower than the stale-branch timeout (RpccServer.Builder."
                        + "staleBranchTimeout) causes this", nodeName, key.origin(), key.chainId(), key.splitHop(),
                key.parent(), why, m.arrived, m.branches, m.open == null ? " and without its opening" : "", missing);
        m.arrived = 0;
        m.open = null;
        Arrays.fill(m.outcomes, null);
        m.credit = Credit.ZERO;
    }

    private static String what(ChainHeader h) {
        return switch (HopKind.of(h.serviceFunction())) {
            case SPLIT_OPENING -> "the opening of a split";
            case BRANCH_FAILURE -> "the failure of branch " + h.branch();
            default -> "the outcome of branch " + h.branch();
        };
    }

    private static <T> List<T> tail(List<T> list, int from) {
        return list.subList(Math.min(from, list.size()), list.size());
    }

    private static List<String> strings(Object o) {
        List<String> out = new ArrayList<>();
        if (o instanceof List<?> l) {
            l.forEach(e -> out.add(String.valueOf(e)));
        }
        return out;
    }
}
