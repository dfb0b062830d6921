package io.rpcc.core.internal.function;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionIsolation;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.CompilerSettings;
import io.rpcc.core.spi.EngineSpi;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionCompilerProvider;
import io.rpcc.core.spi.FunctionFailure;
import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.core.spi.SandboxViolation;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * Loads and runs chaining functions: compiles each source once (per content id), keeps the
 * compiled forms in a bounded LRU cache, and turns anything a function throws into a typed
 * {@link HopFailure}. Compilation of one source is shared by concurrent callers; a source that does
 * not compile is remembered as such (it never will). Compilations run on a small pool of
 * {@value FunctionResources#COMPILER_THREADS}-or-fewer threads shared by the JVM's nodes ({@link FunctionResources},
 * held from {@link #open()} to {@link #close()}), with no lock between them; each node lets at most
 * {@code maxQueuedCompiles} of its own wait there and refuses more, of them at most
 * {@code 1/}{@value #PEER_COMPILE_SHARE} for the chains of one peer (the node that sent the hop,
 * {@code NodeTransport.peerOf}), so a flood of new functions slows only itself and leaves the rest of
 * the queue to the other peers; sources over {@code maxSourceChars} are refused before anything reads them.
 *
 * <p>Java functions run in the node's JVM or in its function-runner processes, per chain, as the
 * node's {@link FunctionIsolation} and the isolation level the server's chain policy chose for the
 * hop say ({@link #isolationFor}): a
 * function to run in a runner is not compiled here at all, only cached as a {@link RunnerFunction}
 * (under its own key); the runners, a {@link FunctionRunnerPool}, compile it.
 */
@EngineSpi
public final class FunctionRuntime {
    /** The default bound of a chaining function's source, in chars. */
    public static final int DEFAULT_MAX_SOURCE_CHARS = 64 * 1024;
    /** The default number of compilations one node lets wait or run at once. */
    public static final int DEFAULT_MAX_QUEUED_COMPILES = 16;
    /** One peer's compilations may take at most this fraction (1/n, at least one) of {@code maxQueuedCompiles}. */
    public static final int PEER_COMPILE_SHARE = 2;
    /** The longest error message or stack line reported from a chaining function, in chars. */
    /** The most sandbox rules counted by name ({@link #sandboxViolations()}); plug-ins name their own. */
    static final int MAX_RULES = 64;
    /** The name under which violations of other rules (or of none) are counted. */
    static final String OTHER_RULE = "other";

    public static final int MAX_MESSAGE_CHARS = FunctionText.MAX_MESSAGE_CHARS;

    /**
     * Cache counters.
     *
     * @param hits loads served from the cache
     * @param misses loads that compiled
     * @param compileNanos total time spent compiling (and fetching)
     * @param size entries in the cache
     * @param fetches sources fetched from a repository
     * @param abandonedSandboxThreads this runtime's sandbox threads abandoned at their wall-time limit inside a
     *     JDK call and still running
     */
    public record Stats(long hits, long misses, long compileNanos, int size, long fetches, int abandonedSandboxThreads) {
    }

    /**
     * A loaded function and what loading it cost the caller.
     *
     * @param function the function
     * @param loadNanos time spent in {@link #load} (compiling, or waiting for another thread's
     *     compilation; about 0 on a cache hit)
     */
    public record Loaded(CompiledFunction function, long loadNanos) {
    }

    private final Map<FunctionLanguage, FunctionCompiler> compilers = new EnumMap<>(FunctionLanguage.class);
    private final LinkedHashMap<String, CompletableFuture<CompiledFunction>> cache;
    private final AtomicLong hits = new AtomicLong();
    private final ConcurrentHashMap<String, LongAdder> violations = new ConcurrentHashMap<>();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong compileNanos = new AtomicLong();

    private final AtomicLong fetches = new AtomicLong();
    private final Set<String> ready = ConcurrentHashMap.newKeySet();
    private final AtomicInteger queuedCompiles = new AtomicInteger();
    /** Compilations waiting or running, by the peer whose chain asked for them (absent: none). */
    private final ConcurrentHashMap<String, Integer> compilesByPeer = new ConcurrentHashMap<>();
    private final int maxSourceChars;
    private final int maxQueuedCompiles;
    private final IntSupplier abandonedSandboxThreads;
    private final int maxCached;
    private final Refusals refusals;
    private final UnaryOperator<ChainingFunctionSource> fetcher;
    private final Isolation isolation;
    private final String node;
    /** The node's function runners, started on the first invocation that needs one (null until then). */
    private FunctionRunnerPool runners;
    private boolean closed;
    /** The warm-up this runtime started (null: none, or another node of the JVM did it). */
    private FunctionWarmUp warmUp;
    /** The functions the node knows before any chain names them (set once, right after construction). */
    private KnownFunctionPrecompile.KnownFunctions known = KnownFunctionPrecompile.KnownFunctions.NONE;
    /** The compilation of {@link #known} this runtime started (null: none). */
    private KnownFunctionPrecompile precompile;

    /** What a node gives its runtime: its refusal counters, its fetcher of referenced functions, its name. */
    private record InNode(Refusals refusals, UnaryOperator<ChainingFunctionSource> fetcher, String node) {
    }

    /**
     * Where this runtime runs Java functions, and what its runner processes need.
     *
     * @param mode the node's setting
     * @param pool the runner pool's sizes
     * @param types the node's registered types
     * @param limits the sandbox's limits (null: no sandbox, and every function runs in-process)
     * @param classLoader the node's function class loader
     */
    /** Where Java functions run; {@code startRunners}: the runner pool starts with the runtime, not on first use. */
    private record Isolation(FunctionIsolation mode, RunnerPoolSettings pool, TypeRegistry types, SandboxLimits limits,
                             ClassLoader classLoader, boolean startRunners) {
    }

    /** A fetcher for a runtime that cannot fetch referenced functions (it fails them). */
    public static final UnaryOperator<ChainingFunctionSource> NO_FETCHER = ref -> {
        throw new HopFailure(ChainErrorCode.REPOSITORY_UNAVAILABLE, "this node cannot fetch chaining functions");
    };

    private FunctionRuntime(int maxCached, List<FunctionCompiler> compilers, int maxSourceChars, int maxQueuedCompiles,
                            IntSupplier abandonedSandboxThreads, Isolation isolation) {
        this(maxCached, compilers, maxSourceChars, maxQueuedCompiles, abandonedSandboxThreads,
                new InNode(new Refusals(), NO_FETCHER, NodeTransport.LOCAL_PEER), isolation);
    }

    private FunctionRuntime(int maxCached, Iterable<FunctionCompiler> compilers, int maxSourceChars, int maxQueuedCompiles,
                            IntSupplier abandonedSandboxThreads, InNode inNode, Isolation isolation) {
        this.refusals = inNode.refusals();
        this.fetcher = inNode.fetcher();
        this.isolation = isolation;
        this.node = inNode.node();
        this.maxCached = maxCached;
        this.abandonedSandboxThreads = abandonedSandboxThreads;
        this.maxSourceChars = maxSourceChars;
        this.maxQueuedCompiles = maxQueuedCompiles;
        for (FunctionCompiler c : compilers) {
            this.compilers.put(c.language(), c);
        }
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<CompiledFunction>> eldest) {
                if (size() > maxCached) {
                    ready.remove(eldest.getKey());
                    return true;
                }
                return false;
            }
        };
    }

    /**
     * The runtime of a node: the languages of the plug-ins on rpcc's class path (Java with
     * rpcc-function-java, JavaScript with rpcc-js), sandboxed with {@code limits} unless it is null,
     * with the node's registered types allowed; a cache of {@code maxCached} compiled functions.
     */
    public static FunctionRuntime forNode(TypeRegistry types, SandboxLimits limits, int maxCached) {
        return forNode(types, limits, maxCached, DEFAULT_MAX_SOURCE_CHARS, DEFAULT_MAX_QUEUED_COMPILES);
    }

    /**
     * The runtime of a node, as {@link #forNode(TypeRegistry, SandboxLimits, int)}, with bounds on
     * sources and the compile queue.
     */
    public static FunctionRuntime forNode(TypeRegistry types, SandboxLimits limits, int maxCached, int maxSourceChars,
                                          int maxQueuedCompiles) {
        return forNode(types, limits, maxCached, maxSourceChars, maxQueuedCompiles, ChainingFunction.class.getClassLoader());
    }

    /**
     * The runtime of a node, as {@link #forNode(TypeRegistry, SandboxLimits, int, int, int)}, whose Java
     * functions compile against and load through {@code classLoader}.
     */
    public static FunctionRuntime forNode(TypeRegistry types, SandboxLimits limits, int maxCached, int maxSourceChars,
                                          int maxQueuedCompiles, ClassLoader classLoader) {
        List<FunctionCompiler> compilers = new java.util.ArrayList<>();
        CompilerSettings settings = new CompilerSettings(limits, types, classLoader);
        for (FunctionCompilerProvider p : java.util.ServiceLoader.load(FunctionCompilerProvider.class,
                FunctionRuntime.class.getClassLoader())) {
            compilers.add(p.create(settings));
        }
        return new FunctionRuntime(maxCached, compilers, maxSourceChars, maxQueuedCompiles,
                () -> compilers.stream().mapToInt(FunctionCompiler::abandonedThreads).sum(),
                new Isolation(FunctionIsolation.IN_PROCESS, RunnerPoolSettings.DEFAULT, types, limits, classLoader, false));
    }

    /**
     * This runtime, running Java functions as {@code mode} says ({@link FunctionIsolation}), in
     * runner processes sized by {@code pool} where it runs them isolated. Without a sandbox
     * ({@code limits} null) every function runs in-process.
     */
    public FunctionRuntime isolated(FunctionIsolation mode, RunnerPoolSettings pool) {
        return isolated(mode, pool, mode == FunctionIsolation.PROCESS);
    }

    /**
     * {@link #isolated(FunctionIsolation, RunnerPoolSettings)}; if {@code startRunners}, the runner
     * pool starts with the runtime ({@link #open()}), its spares warming while the node starts, rather
     * than with the first function that needs a runner: for a node whose every Java function will run
     * in one (as {@code PROCESS}, or {@code BY_TRUST} where no originator can be verified).
     */
    public FunctionRuntime isolated(FunctionIsolation mode, RunnerPoolSettings pool, boolean startRunners) {
        FunctionRuntime r = new FunctionRuntime(maxCached, compilers.values(), maxSourceChars, maxQueuedCompiles,
                abandonedSandboxThreads, new InNode(refusals, fetcher, node),
                new Isolation(mode, pool, isolation.types(), isolation.limits(), isolation.classLoader(), startRunners));
        r.known = known;
        return r;
    }

    /**
     * This runtime, compiling {@code functions} (the chaining functions its node knows before any chain
     * names them; a reference is fetched from its repository) into its cache in the background when
     * {@link #warmUpInBackground()} runs: at most {@code maxFunctions} of them, none started after
     * {@code budget} (see {@link KnownFunctionPrecompile}).
     */
    public FunctionRuntime knowing(List<ChainingFunctionSource> functions, int maxFunctions, Duration budget) {
        FunctionRuntime r = new FunctionRuntime(maxCached, compilers.values(), maxSourceChars, maxQueuedCompiles,
                abandonedSandboxThreads, new InNode(refusals, fetcher, node), isolation);
        r.known = new KnownFunctionPrecompile.KnownFunctions(functions, maxFunctions, budget);
        return r;
    }

    /**
     * Where this runtime runs the Java functions of a hop the server's chain policy gave {@code level}:
     * never {@code BY_TRUST}.
     */
    public FunctionIsolation isolationFor(IsolationLevel level) {
        return isolation.limits() == null ? FunctionIsolation.IN_PROCESS : isolation.mode().forLevel(level);
    }

    /** The node's function runners, or {@code null} if none has been needed yet. */
    public synchronized FunctionRunnerPool runnersOrNull() {
        return runners;
    }

    private synchronized FunctionRunnerPool runners() {
        if (closed) {
            throw new HopFailure(ChainErrorCode.NODE_CLOSED, "node '" + node + "' is closed");
        }
        if (runners == null) {
            runners = new FunctionRunnerPool(node, isolation.pool(), isolation.types(), isolation.limits(), maxSourceChars,
                    isolation.classLoader());
        }
        return runners;
    }

    /**
     * A runtime of the node that built this one, named {@code node} (with its compilers, sandbox,
     * isolation and bounds, an empty cache), that counts its refusals (sandbox violations, full compile queue, oversized sources)
     * in {@code refusals}, the node's, and fetches the source of a referenced function on a cache miss
     * with {@code fetcher} (the node asks the repository named in the reference).
     */
    public FunctionRuntime inNode(String node, Refusals refusals, UnaryOperator<ChainingFunctionSource> fetcher) {
        FunctionRuntime r = new FunctionRuntime(maxCached, compilers.values(), maxSourceChars, maxQueuedCompiles,
                abandonedSandboxThreads, new InNode(refusals, fetcher, node), isolation);
        r.known = known;
        return r;
    }

    /**
     * Whether a hop that runs {@code source} is better started on a platform thread
     * ({@link #platformThreads()}) than on a virtual one: true for a sandboxed Java function that
     * is compiled already (a hop that must wait for a compilation waits on a virtual thread).
     */
    public boolean prefersPlatformThread(ChainingFunctionSource source) {
        if (source == null || source.isNone() || source.isSame() || !ready.contains(source.id())
                || StaticRouteFunction.is(source)) {
            return false;
        }
        FunctionCompiler compiler = compilers.get(source.language());
        return compiler != null && compiler.prefersPlatformThread();
    }

    /** The platform threads sandboxed functions run on (shared by the JVM's nodes; while one is open). */
    public static Executor platformThreads() {
        return FunctionResources.sandbox();
    }

    /**
     * Takes a hold on the threads that compile and run chaining functions (the node started); each
     * call is balanced by one {@link #close()}.
     */
    public FunctionRuntime open() {
        FunctionResources.acquire();
        compilers.values().forEach(FunctionCompiler::open);
        if (isolation.startRunners() && isolation.mode() != FunctionIsolation.IN_PROCESS && isolation.limits() != null
                && compilers.containsKey(FunctionLanguage.JAVA)) {
            runners(); // every Java function runs in a runner: start the spares now, not with the first chain
        }
        return this;
    }

    /**
     * Warms this runtime's compilers (javac, GraalJS) on a background daemon thread, once per JVM, so
     * the first chain that needs one does not pay for loading it (see {@link FunctionWarmUp}), and
     * compiles the functions its node knows at start ({@link #knowing}) into its cache on another
     * (see {@link KnownFunctionPrecompile}); returns at once, and never fails. {@link #close()} stops both.
     */
    public FunctionRuntime warmUpInBackground() {
        synchronized (this) {
            if (closed || warmUp != null || precompile != null) {
                return this;
            }
            precompile = KnownFunctionPrecompile.start(node, known,
                    f -> load(f, NodeTransport.LOCAL_PEER, IsolationLevel.IN_PROCESS));
            warmUp = FunctionWarmUp.start(compilers);
        }
        return this;
    }

    /**
     * Waits up to {@code millis} for the warm-up and the compilation of known functions this runtime
     * started to end, and for the spare runners of a pool it started with the node to be started and
     * warm; true if they are, or there was none.
     */
    public boolean awaitWarmUp(long millis) throws InterruptedException {
        FunctionWarmUp w;
        KnownFunctionPrecompile p;
        FunctionRunnerPool r;
        synchronized (this) {
            w = warmUp;
            p = precompile;
            r = runners;
        }
        long end = System.nanoTime() + millis * 1_000_000;
        boolean precompiled = p == null || p.awaitEnd(millis);
        boolean warmed = w == null || w.awaitEnd(Math.max(1, (end - System.nanoTime()) / 1_000_000));
        return precompiled && warmed && (r == null || r.awaitSpares(Math.max(1, (end - System.nanoTime()) / 1_000_000)));
    }

    /** Gives up the hold {@link #open()} took (the node closed); the JVM's last one stops the threads. */
    public void close() {
        FunctionRunnerPool pool;
        FunctionWarmUp w;
        KnownFunctionPrecompile p;
        synchronized (this) {
            closed = true;
            pool = runners;
            w = warmUp;
            p = precompile;
        }
        if (p != null) {
            p.stop();
        }
        if (w != null) {
            w.stop();
        }
        if (pool != null) {
            pool.close();
        }
        compilers.values().forEach(FunctionCompiler::close);
        FunctionResources.release();
    }

    /**
     * The ids of rpcc's own chaining functions ({@link StaticRoute#CHAINING_FUNCTION}): an id is a
     * digest of the text, so whoever sends one sends rpcc's code, and it runs in this JVM at any
     * isolation level, as the engine's plain Java ({@link StaticRouteFunction}).
     */
    private static final Set<String> BUILT_IN = Set.of(StaticRoute.CHAINING_FUNCTION.id());

    /** Loads {@code source}, compiling it on a cache miss (a compilation of this node's own). */
    public Loaded load(ChainingFunctionSource source) {
        return load(source, NodeTransport.LOCAL_PEER, IsolationLevel.IN_PROCESS);
    }

    /**
     * Loads {@code source} for a chain that {@code peer} sent, to run as {@code level} says (a
     * runner process or this JVM, see {@link #isolationFor}), compiling it on a cache miss within
     * that peer's share of the compile queue.
     */
    public Loaded load(ChainingFunctionSource source, String peer, IsolationLevel level) {
        boolean isolated = source.language() == FunctionLanguage.JAVA && isolationFor(level) == FunctionIsolation.PROCESS
                && !BUILT_IN.contains(source.id());
        String key = isolated ? "runner:" + source.id() : source.id();
        long start = System.nanoTime();
        CompletableFuture<CompiledFunction> entry;
        boolean mine = false;
        synchronized (cache) {
            entry = cache.get(key);
            if (entry == null) {
                entry = new CompletableFuture<>();
                cache.put(key, entry);
                mine = true;
            }
        }
        if (mine) {
            misses.incrementAndGet();
            try {
                if (StaticRouteFunction.is(source)) { // rpcc's own code: plain Java, nothing to compile
                    entry.complete(new StaticRouteFunction(source));
                    ready.add(key);
                    return new Loaded(entry.join(), System.nanoTime() - start);
                }
                FunctionCompiler compiler = compilers.get(source.language());
                if (compiler == null) {
                    throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, "this node cannot run "
                            + source.language() + " chaining functions: add the " + (source.language() == FunctionLanguage.JS
                            ? "rpcc-js" : "rpcc-function-java") + " module (artifact io.rpcc:" + (source.language()
                            == FunctionLanguage.JS ? "rpcc-js" : "rpcc-function-java") + ") to its class path");
                }
                ChainingFunctionSource full = source;
                if (source.isReference()) {
                    fetches.incrementAndGet();
                    full = fetcher.apply(source);
                }
                entry.complete(isolated ? inRunner(full) : compile(compiler, full, peer));
                ready.add(key);
            } catch (RuntimeException | LinkageError thrown) {
                Throwable e = thrown instanceof FunctionFailure f ? FunctionFailures.toHop(f) : thrown;
                entry.completeExceptionally(e instanceof HopFailure ? e
                        : new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, "cannot compile chaining function: " + e, e));
                if (e instanceof HopFailure f && (f.code() == ChainErrorCode.REPOSITORY_UNAVAILABLE
                        || f.code() == ChainErrorCode.FUNCTION_NOT_FOUND || TransientFailure.is(f))) {
                    // a repository that is down, or not filled yet, may answer later; a full queue or a
                    // parse stopped at a time limit on a loaded node may pass later
                    synchronized (cache) {
                        cache.remove(key, entry);
                    }
                }
            } finally {
                compileNanos.addAndGet(System.nanoTime() - start);
            }
        } else {
            hits.incrementAndGet();
        }
        try {
            return new Loaded(entry.join(), System.nanoTime() - start);
        } catch (CompletionException e) {
            if (e.getCause() instanceof HopFailure f && f.code() == ChainErrorCode.SANDBOX_VIOLATION) {
                violated(f); // refused by the verifier
            }
            throw (RuntimeException) e.getCause();
        }
    }

    /**
     * {@code source} (its full text) as a function that runs in the node's runner processes: compiled
     * there, on its first invocation in each runner (nothing of it runs in this JVM, static
     * initializers included).
     */
    private CompiledFunction inRunner(ChainingFunctionSource source) {
        if (source.source().length() > maxSourceChars) {
            refusals.count(Refusal.FUNCTION_SOURCE_TOO_LARGE);
            throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, source.language() + " chaining function ("
                    + shortId(source) + ") has " + source.source().length() + " chars of source, over this node's limit"
                    + " of " + maxSourceChars + " (NodeBuilder.maxFunctionSourceChars)");
        }
        return new RunnerFunction(source, this::runners);
    }

    /** Compiles {@code source} on the compiler pool, waiting for it; refused over the bounds. */
    private CompiledFunction compile(FunctionCompiler compiler, ChainingFunctionSource source, String peer) {
        int max = Math.min(maxSourceChars, compiler.maxSourceChars());
        if (source.source().length() > max) {
            refusals.count(Refusal.FUNCTION_SOURCE_TOO_LARGE);
            throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, source.language() + " chaining function ("
                    + shortId(source) + ") has " + source.source().length() + " chars of source, over this node's limit"
                    + " of " + max + (max == maxSourceChars ? " (NodeBuilder.maxFunctionSourceChars)"
                    : " for " + source.language() + " functions") + "; keep chaining functions small and move the"
                    + " work into service functions, or data into the chain state");
        }
        int share = Math.max(1, maxQueuedCompiles / PEER_COMPILE_SHARE);
        boolean[] admitted = {false};
        compilesByPeer.compute(peer, (p, n) -> {
            int queued = n == null ? 0 : n;
            if (queued >= share) {
                return n;
            }
            admitted[0] = true;
            return queued + 1;
        });
        if (!admitted[0]) {
            refusals.count(Refusal.COMPILE_QUEUE_FULL);
            throw TransientFailure.of(ChainErrorCode.CHAINING_FUNCTION_COMPILE, "the compile queue is full for the"
                    + " chains of " + peer + ": it has " + share + " chaining functions of them waiting to compile, its"
                    + " share of this node's " + maxQueuedCompiles + " (NodeBuilder.maxQueuedCompiles / "
                    + PEER_COMPILE_SHARE + "); retry later, or reuse compiled functions");
        }
        if (queuedCompiles.incrementAndGet() > maxQueuedCompiles) {
            queuedCompiles.decrementAndGet();
            leave(peer);
            refusals.count(Refusal.COMPILE_QUEUE_FULL);
            throw TransientFailure.of(ChainErrorCode.CHAINING_FUNCTION_COMPILE, "the compile queue is full: this node"
                    + " has " + maxQueuedCompiles + " chaining functions waiting to compile, its limit"
                    + " (NodeBuilder.maxQueuedCompiles); retry later, or reuse compiled functions");
        }
        try {
            CompletableFuture<CompiledFunction> done = CompletableFuture.supplyAsync(() -> {
                try {
                    return compiler.compile(source);
                } catch (StackOverflowError e) {
                    throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_COMPILE, "chaining function (" + shortId(source)
                            + ") is nested too deeply to compile");
                } catch (FunctionFailure f) {
                    throw FunctionFailures.toHop(f);
                }
            }, FunctionResources.compilers());
            return done.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } finally {
            queuedCompiles.decrementAndGet();
            leave(peer);
        }
    }

    /** A compilation of {@code peer}'s has left the queue. */
    private void leave(String peer) {
        compilesByPeer.computeIfPresent(peer, (p, n) -> n <= 1 ? null : n - 1);
    }

    /**
     * Runs {@code function} on {@code state} and {@code result}.
     *
     * @throws HopFailure with {@link ChainErrorCode#CHAINING_FUNCTION_FAILED} if it throws or returns null
     */
    public NextHop invoke(CompiledFunction function, ChainState state, Object result) {
        return invoke(function, state, result, null);
    }

    /**
     * Runs {@code function} on {@code state} and {@code result}; if the sandbox abandons the
     * invocation at its wall-time limit, {@code onAbandon} (on another thread) reports the failure
     * at once and this call, whenever the stuck thread comes back, throws {@link InvocationAbandoned}.
     *
     * @throws HopFailure with {@link ChainErrorCode#CHAINING_FUNCTION_FAILED} if it throws or returns null
     */
    public NextHop invoke(CompiledFunction function, ChainState state, Object result, Consumer<HopFailure> onAbandon) {
        NextHop next;
        try {
            FunctionCompiler compiler = compilers.get(function.source().language());
            boolean watched = onAbandon != null && compiler != null && compiler.prefersPlatformThread();
            next = !watched ? function.invoke(state, result)
                    : function.invoke(state, result, failure -> { // only the Java sandbox's watchdog abandons invocations
                HopFailure abandoned = FunctionFailures.toHop(failure);
                violated(abandoned);
                onAbandon.accept(abandoned);
            });
        } catch (FunctionFailure | SandboxViolation f) {
            HopFailure e = FunctionFailures.toHop(f instanceof SandboxViolation v ? v.toFailure() : (FunctionFailure) f);
            if (e.code() == ChainErrorCode.SANDBOX_VIOLATION) {
                violated(e);
            }
            throw e;
        } catch (HopFailure e) {
            if (e.code() == ChainErrorCode.SANDBOX_VIOLATION) {
                violated(e);
            }
            throw e;
        } catch (InvocationAbandoned e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, e.getClass().getName(), bounded(e.getMessage()),
                    stackTrace(e), e);
        }
        if (next == null) {
            throw new HopFailure(ChainErrorCode.CHAINING_FUNCTION_FAILED, "chaining function (" + shortId(function.source())
                    + ") returned null; return NextHop.end(result) to end the chain");
        }
        return next;
    }

    /** The start of {@code source}'s id, enough to tell functions apart in a message. */
    public static String shortId(ChainingFunctionSource source) {
        return FunctionText.shortId(source);
    }

    /** The first lines of {@code t}'s stack trace, for failure details, each {@link #bounded}. */
    public static List<String> stackTrace(Throwable t) {
        return FunctionText.stackTrace(t);
    }

    /**
     * {@code s} cut to {@link #MAX_MESSAGE_CHARS}, saying how long it was: what a chaining function
     * of any language makes a failure say must fit in an ERROR frame.
     */
    public static String bounded(String s) {
        return FunctionText.bounded(s);
    }

    /** Cache counters. */
    /**
     * Counts a chaining function's sandbox violation {@code f}: as a refusal, and by its rule (at most
     * {@value #MAX_RULES} rules by name, the others as {@value #OTHER_RULE}).
     */
    private void violated(HopFailure f) {
        refusals.count(Refusal.SANDBOX_VIOLATION);
        String rule = f.fields().sandboxRule();
        if (rule == null) {
            rule = OTHER_RULE;
        }
        LongAdder n = violations.get(rule);
        if (n == null) {
            n = violations.size() < MAX_RULES ? violations.computeIfAbsent(rule, r -> new LongAdder())
                    : violations.computeIfAbsent(OTHER_RULE, r -> new LongAdder());
        }
        n.increment();
    }

    /**
     * Chaining functions that broke a sandbox rule (refused by the verifier, or stopped at a limit), by
     * the rule's name ({@code SandboxViolation.rule()}, e.g. {@code "threads"}, {@code "cpu-time"}); rules
     * never broken are absent.
     */
    public Map<String, Long> sandboxViolations() {
        Map<String, Long> m = new java.util.TreeMap<>();
        violations.forEach((rule, n) -> m.put(rule, n.sum()));
        return m;
    }

    public Stats stats() {
        synchronized (cache) {
            return new Stats(hits.get(), misses.get(), compileNanos.get(), cache.size(), fetches.get(),
                    abandonedSandboxThreads.getAsInt());
        }
    }
}
