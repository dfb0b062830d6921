package io.rpcc.core.internal.function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.runtime.FunctionCheck;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.HopFailure;
import org.junit.jupiter.api.Test;

/**
 * rpcc-core alone (its tests have neither rpcc-function-java nor rpcc-js on the class path): a node
 * runs no chaining function, and one that must run there fails with a typed compile failure that
 * names the artifact to add, at a node (a client running an interactive chain) as at a build-time check.
 */
class MissingLanguageTest {
    private static final ChainingFunctionSource JAVA = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class Ends implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) { return NextHop.end(result); }
            }
            """);

    @Test
    void aJavaFunctionWithoutTheJavaModuleFailsNamingIt() {
        FunctionRuntime rt = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 4).open();
        try {
            HopFailure f = assertThrows(HopFailure.class, () -> rt.load(JAVA));
            assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, f.code());
            assertTrue(f.getMessage().contains("cannot run JAVA chaining functions: add the rpcc-function-java module "
                    + "(artifact io.rpcc:rpcc-function-java)"), f.getMessage());
            HopFailure js = assertThrows(HopFailure.class, () -> rt.load(ChainingFunctionSource.javascript("(s, r) => rpcc.end(r)")));
            assertTrue(js.getMessage().contains("artifact io.rpcc:rpcc-js"), js.getMessage());
        } finally {
            rt.close();
        }
    }

    @Test
    void aFunctionCheckWithoutTheJavaModuleFailsNamingIt() {
        ChainingFunctionCompileException e = assertThrows(ChainingFunctionCompileException.class,
                () -> FunctionCheck.builder().build().check(JAVA));
        assertTrue(e.getMessage().contains("rpcc-function-java"), e.getMessage());
    }
}
