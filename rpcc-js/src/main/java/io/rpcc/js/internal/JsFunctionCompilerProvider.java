package io.rpcc.js.internal;

import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.CompilerSettings;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionCompilerProvider;

/** Registers JavaScript chaining functions with every node that has this module on its class path. */
public final class JsFunctionCompilerProvider implements FunctionCompilerProvider {
    /**
     * The JVM system property that turns reused JavaScript contexts off ({@code false}: a fresh
     * context per invocation, 1–4 ms each; default {@code true}: reused, locked-down contexts). See
     * {@link JsRealm} for what a reused context locks down, and docs/guides/security-and-sandbox.md
     * for what changes for functions.
     */
    public static final String REUSE_CONTEXTS = "rpcc.js.reuseContexts";

    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JS;
    }

    @Override
    public FunctionCompiler create(CompilerSettings settings) {
        return new JsFunctionCompiler(settings.sandbox(), !"false".equalsIgnoreCase(System.getProperty(REUSE_CONTEXTS, "true").trim()));
    }
}
