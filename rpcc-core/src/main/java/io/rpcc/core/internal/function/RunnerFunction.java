package io.rpcc.core.internal.function;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.spi.CompiledFunction;
import java.util.function.Supplier;

/**
 * A Java chaining function that runs in the node's function-runner processes
 * ({@link FunctionRunnerPool}) rather than in its JVM: each invocation is sent to a runner with
 * where it runs in its chain, and what it wrote to its console and its partial replies are replayed
 * into the chain's context here.
 */
final class RunnerFunction implements CompiledFunction {
    private final ChainingFunctionSource source;
    private final Supplier<FunctionRunnerPool> pool;

    RunnerFunction(ChainingFunctionSource source, Supplier<FunctionRunnerPool> pool) {
        this.source = source;
        this.pool = pool;
    }

    @Override
    public ChainingFunctionSource source() {
        return source;
    }

    @Override
    public NextHop invoke(ChainState state, Object result) {
        ChainContext context = ChainContext.currentOrNull();
        RunnerProtocol.Where where = context == null ? new RunnerProtocol.Where("", "", 0, "")
                : new RunnerProtocol.Where(context.chainId(), context.originator(), context.hop(), context.node());
        return pool.get().invoke(source, party(context), where, state, result,
                line -> {
                    if (context != null) {
                        context.console().println(line);
                    }
                },
                reply -> {
                    if (context != null) {
                        context.preturn(reply);
                    }
                });
    }

    /**
     * Who asks for the runner, for its fair share ({@link RunnerShares}): the originator if verified,
     * else the peer that sent the hop (in plaintext, its IP address: an originator's name is only a
     * claim), or {@code "local"}.
     */
    static String party(ChainContext context) {
        if (context == null) {
            return "local";
        }
        ChainCaller caller = context.caller();
        return caller.originatorVerified() ? "originator:" + caller.originator() : caller.previousHop();
    }
}
