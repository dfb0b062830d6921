package io.rpcc.js.internal;

import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.CompilerSettings;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionCompilerProvider;

/** Registers JavaScript chaining functions with every node that has this module on its class path. */
public final class JsFunctionCompilerProvider implements FunctionCompilerProvider {
    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JS;
    }

    @Override
    public FunctionCompiler create(CompilerSettings settings) {
        return new JsFunctionCompiler(settings.sandbox());
    }
}
