package io.rpcc.js.internal;

import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionCompiler;
import io.rpcc.core.internal.function.FunctionCompilerProvider;

/** Registers JavaScript chaining functions with every node that has this module on its class path. */
public final class JsFunctionCompilerProvider implements FunctionCompilerProvider {
    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JS;
    }

    @Override
    public FunctionCompiler create(SandboxLimits limits, TypeRegistry types) {
        return new JsFunctionCompiler(limits);
    }
}
