package io.rpcc.function.java.internal;

import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.spi.CompilerSettings;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionCompilerProvider;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Registers Java chaining functions with every node that has this module on its class path: a
 * {@link JavaFunctionCompiler} against the node's function class loader, sandboxed (verified,
 * instrumented and run under a budget) unless the node has no sandbox.
 */
public final class JavaFunctionCompilerProvider implements FunctionCompilerProvider {
    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JAVA;
    }

    @Override
    public FunctionCompiler create(CompilerSettings settings) {
        TypeRegistry types = settings.types();
        BytecodeSandbox bytecode = null;
        Sandbox sandbox = null;
        if (settings.sandbox() != null) {
            Set<String> userTypes = new HashSet<>();
            for (TypeRegistry.Registration r : types.registrations()) {
                userTypes.add(r.type().getName().replace('.', '/'));
            }
            bytecode = new BytecodeSandbox(userTypes, settings.classLoader());
            sandbox = new Sandbox(settings.sandbox());
        }
        List<Class<?>> known = new ArrayList<>();
        types.registrations().forEach(r -> known.add(r.type()));
        return new JavaFunctionCompiler(settings.classLoader(), known, bytecode, sandbox);
    }
}
