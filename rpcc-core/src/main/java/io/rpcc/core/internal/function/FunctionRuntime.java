package io.rpcc.core.internal.function;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Loads and runs chaining functions: compiles each source once (per content id), keeps the
 * compiled forms in a bounded LRU cache, and turns anything a function throws into a typed
 * {@link HopFailure}. Compilation of one source is shared by concurrent callers; a source that does
 * not compile is remembered as such (it never will).
 */
public final class FunctionRuntime {
    private static volatile FunctionRuntime shared;

    /**
     * Cache counters.
     *
     * @param hits loads served from the cache
     * @param misses loads that compiled
     * @param compileNanos total time spent compiling
     * @param size entries in the cache
     */
    public record Stats(long hits, long misses, long compileNanos, int size) {
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

    /** A runtime caching at most {@code maxCached} compiled functions. */
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

    /** The runtime shared by the nodes of this JVM that were not given their own. */
    public static FunctionRuntime shared() {
        FunctionRuntime r = shared;
        if (r == null) {
            synchronized (FunctionRuntime.class) {
                r = shared;
                if (r == null) {
                    r = new FunctionRuntime(1024, List.of(new JavaFunctionCompiler(ChainingFunction.class.getClassLoader())));
                    shared = r;
                }
            }
        }
        return r;
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
                            + source.language() + " chaining functions");
                }
                entry.complete(compiler.compile(source));
            } catch (RuntimeException | LinkageError e) {
                entry.completeExceptionally(e instanceof HopFailure ? e
                        : new HopFailure(ErrorCode.CHAINING_FUNCTION_COMPILE, "cannot compile chaining function: " + e, e));
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
    public static NextHop invoke(CompiledFunction function, ChainState state, Object result) {
        ChainingFunction instance = function.newInstance();
        NextHop next;
        try {
            next = instance.apply(state, result);
        } catch (Exception | StackOverflowError e) {
            throw new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, e.getClass().getName(), e.getMessage(),
                    stackTrace(e), e);
        }
        if (next == null) {
            throw new HopFailure(ErrorCode.CHAINING_FUNCTION_FAILED, "chaining function "
                    + instance.getClass().getName() + " returned null; return NextHop.end(result) to end the chain");
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
            return new Stats(hits.get(), misses.get(), compileNanos.get(), cache.size());
        }
    }
}
