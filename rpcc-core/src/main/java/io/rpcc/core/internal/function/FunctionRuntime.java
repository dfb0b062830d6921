package io.rpcc.core.internal.function;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Loads and runs chaining functions: compiles each source once (per content id), keeps the
 * compiled forms in a bounded LRU cache, and turns anything a function throws into a typed
 * {@link HopFailure}. Compilation of one source is shared by concurrent callers; a source that does
 * not compile is remembered as such (it never will).
 */
public final class FunctionRuntime {
    /**
     * Cache counters.
     *
     * @param hits loads served from the cache
     * @param misses loads that compiled
     * @param compileNanos total time spent compiling (and fetching)
     * @param size entries in the cache
     * @param fetches sources fetched from a repository
     */
    public record Stats(long hits, long misses, long compileNanos, int size, long fetches) {
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
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong compileNanos = new AtomicLong();

    private final AtomicLong fetches = new AtomicLong();
    private volatile java.util.function.UnaryOperator<ChainingFunctionSource> fetcher = ref -> {
        throw new HopFailure(ErrorCode.REPOSITORY_UNAVAILABLE, "this node cannot fetch chaining functions");
    };

    /**
     * Sets how this runtime fetches the source of a referenced function on a cache miss (the node
     * asks the repository named in the reference).
     */
    public void fetchWith(java.util.function.UnaryOperator<ChainingFunctionSource> fetcher) {
        this.fetcher = fetcher;
    }

    /**
     * A runtime caching at most {@code maxCached} compiled functions made by {@code compilers}
     * (which decide whether their functions run in a sandbox).
     */
    public FunctionRuntime(int maxCached, List<FunctionCompiler> compilers) {
        for (FunctionCompiler c : compilers) {
            this.compilers.put(c.language(), c);
        }
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<CompiledFunction>> eldest) {
                return size() > maxCached;
            }
        };
    }

    /**
     * The runtime of a node: Java functions (sandboxed with {@code limits} unless it is null, with
     * the node's registered types allowed), a cache of {@code maxCached} compiled functions.
     */
    public static FunctionRuntime forNode(TypeRegistry types, SandboxLimits limits, int maxCached) {
        BytecodeSandbox bytecode = null;
        if (limits != null) {
            Set<String> userTypes = new HashSet<>();
            for (TypeRegistry.Registration r : types.registrations()) {
                userTypes.add(r.type().getName().replace('.', '/'));
            }
            bytecode = new BytecodeSandbox(userTypes);
        }
        List<FunctionCompiler> compilers = new java.util.ArrayList<>();
        compilers.add(new JavaFunctionCompiler(ChainingFunction.class.getClassLoader(), bytecode,
                limits == null ? null : new Sandbox(limits)));
        for (FunctionCompilerProvider p : java.util.ServiceLoader.load(FunctionCompilerProvider.class,
                FunctionRuntime.class.getClassLoader())) {
            compilers.add(p.create(limits, types));
        }
        return new FunctionRuntime(maxCached, compilers);
    }

    /**
     * Whether a hop that runs {@code source} is better started on a platform thread
     * ({@link #platformThreads()}) than on a virtual one: true for a sandboxed Java function.
     */
    public boolean prefersPlatformThread(ChainingFunctionSource source) {
        if (source == null || source.isNone() || source.isSame()) {
            return false;
        }
        FunctionCompiler compiler = compilers.get(source.language());
        return compiler != null && compiler.prefersPlatformThread();
    }

    /** The platform threads sandboxed functions run on (shared by every node in the JVM). */
    public static Executor platformThreads() {
        return MonitoredExecution.THREADS;
    }

    /** Loads {@code source}, compiling it on a cache miss. */
    public Loaded load(ChainingFunctionSource source) {
        long start = System.nanoTime();
        CompletableFuture<CompiledFunction> entry;
        boolean mine = false;
        synchronized (cache) {
            entry = cache.get(source.id());
            if (entry == null) {
                entry = new CompletableFuture<>();
                cache.put(source.id(), entry);
                mine = true;
            }
        }
        if (mine) {
            misses.incrementAndGet();
            try {
                FunctionCompiler compiler = compilers.get(source.language());
                if (compiler == null) {
                    throw new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, "this node cannot run "
                            + source.language() + " chaining functions" + (source.language() == FunctionLanguage.JS
                            ? " (add the rpcc-js module to its class path)" : ""));
                }
                ChainingFunctionSource full = source;
                if (source.isReference()) {
                    fetches.incrementAndGet();
                    full = fetcher.apply(source);
                }
                entry.complete(compiler.compile(full));
            } catch (RuntimeException | LinkageError e) {
                entry.completeExceptionally(e instanceof HopFailure ? e
                        : new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, "cannot compile chaining function: " + e, e));
                if (e instanceof HopFailure f && (f.code() == ErrorCode.REPOSITORY_UNAVAILABLE
                        || f.code() == ErrorCode.FUNCTION_NOT_FOUND)) {
                    synchronized (cache) { // a repository that is down, or not filled yet, may answer later
                        cache.remove(source.id(), entry);
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
            throw (RuntimeException) e.getCause();
        }
    }

    /**
     * Runs {@code function} on {@code state} and {@code result}.
     *
     * @throws HopFailure with {@link ErrorCode#CHAINING_FUNCTION_FAILED} if it throws or returns null
     */
    public NextHop invoke(CompiledFunction function, ChainState state, Object result) {
        NextHop next;
        try {
            next = function.invoke(state, result);
        } catch (HopFailure e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            throw new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, e.getClass().getName(), e.getMessage(),
                    stackTrace(e), e);
        }
        if (next == null) {
            throw new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, "chaining function (" + function.source().id()
                    .substring(0, 17) + "…) returned null; return NextHop.end(result) to end the chain");
        }
        return next;
    }

    /** The first lines of {@code t}'s stack trace, for failure details. */
    public static List<String> stackTrace(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        int n = Math.min(st.length, 12);
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = "at " + st[i];
        }
        return List.of(out);
    }

    /** Cache counters. */
    public Stats stats() {
        synchronized (cache) {
            return new Stats(hits.get(), misses.get(), compileNanos.get(), cache.size(), fetches.get());
        }
    }
}
