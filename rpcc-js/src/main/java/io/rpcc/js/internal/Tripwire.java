package io.rpcc.js.internal;

import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.SandboxViolation;
import java.util.function.Supplier;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyInstantiable;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * Stands in for a global that the sandbox removed ({@code Java}, {@code Polyglot}, {@code load},
 * {@code quit}, ...): any use is a sandbox violation, recorded even if the script catches it, so
 * the chain ends with the rule that was broken instead of a plain {@code ReferenceError}.
 */
final class Tripwire implements ProxyObject, ProxyExecutable, ProxyInstantiable {
    private final String name;
    private final String rule;
    private final Supplier<Invocation> invocation;

    /** A stand-in that records its use in {@code invocation}. */
    Tripwire(String name, String rule, Invocation invocation) {
        this(name, rule, () -> invocation);
    }

    /** A stand-in of a reused context: its use is recorded in the invocation running at the time. */
    Tripwire(String name, String rule, Supplier<Invocation> invocation) {
        this.name = name;
        this.rule = rule;
        this.invocation = invocation;
    }

    private SandboxViolation trip(String what) {
        return invocation.get().refuse(rule, "chaining function used " + FunctionText.bounded(what)
                + ", which the JavaScript sandbox does not provide");
    }

    @Override
    public Object execute(Value... arguments) {
        throw trip(name + "()");
    }

    @Override
    public Object newInstance(Value... arguments) {
        throw trip("new " + name + "()");
    }

    @Override
    public Object getMember(String key) {
        throw trip(name + "." + key);
    }

    @Override
    public Object getMemberKeys() {
        throw trip("the members of " + name);
    }

    @Override
    public boolean hasMember(String key) {
        throw trip(name + "." + key);
    }

    @Override
    public void putMember(String key, Value value) {
        throw trip(name + "." + key);
    }

    @Override
    public boolean removeMember(String key) {
        throw trip(name + "." + key);
    }
}
