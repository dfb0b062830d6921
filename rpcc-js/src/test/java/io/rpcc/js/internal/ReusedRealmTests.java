package io.rpcc.js.internal;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the tests of reused JavaScript contexts share: one compiler with the default sandbox and
 * reused realms, and a function runtime held open meanwhile (it holds the sandbox threads, as a
 * started node does).
 */
abstract class ReusedRealmTests {
    static FunctionRuntime held;
    static JsFunctionCompiler compiler;

    @BeforeAll
    static void start() {
        held = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 1).open();
        compiler = new JsFunctionCompiler(SandboxLimits.DEFAULT, true);
    }

    @AfterAll
    static void stop() {
        compiler.close();
        held.close();
    }

    /** Runs {@code source} once on an empty state and {@code "r"}: the result it ends the chain with. */
    static Object run(String source) throws Exception {
        NextHop hop = compiler.compile(ChainingFunctionSource.javascript(source)).invoke(ChainState.empty(), "r");
        return assertInstanceOf(NextHop.End.class, hop).result();
    }
}
