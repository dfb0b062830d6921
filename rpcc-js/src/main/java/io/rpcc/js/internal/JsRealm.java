package io.rpcc.js.internal;

import io.rpcc.core.ChainContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.graalvm.polyglot.proxy.ProxyHashMap;
import org.graalvm.polyglot.proxy.ProxyInstant;
import org.graalvm.polyglot.proxy.ProxyIterable;
import org.graalvm.polyglot.proxy.ProxyIterator;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * A GraalJS context that runs many invocations, one at a time, with nothing of one seen by the
 * next (the default; {@link JsFunctionCompilerProvider#REUSE_CONTEXTS} turns it off). Its realm is locked down once, when it is made:
 *
 * <ul>
 *   <li>every intrinsic reachable from the global object (constructors, prototypes, their
 *       functions and accessors, the iterator, generator and async-function prototypes) is frozen,
 *       then the global object itself, so no invocation can stash a value in a global or a built-in;
 *       so are the prototypes the engine gives host values and host exceptions ({@link #hostSeeds}),
 *       and each function's factory (which the guest reaches as {@code arguments.callee});</li>
 *   <li>the stand-ins ({@link Tripwire}) and the {@code rpcc} object are installed once and report
 *       to the invocation running at the time ({@link #bind}); outside an invocation there is none;</li>
 *   <li>legacy {@code RegExp.$1}-style statics (which every match updates) are off, and
 *       {@code FinalizationRegistry}, whose callbacks would run in a later invocation, is a stand-in;</li>
 *   <li>a function never runs as a script (whose top-level {@code let}/{@code const} would land in
 *       the realm's global scope): its source is the body of a factory made with the (frozen)
 *       {@code Function} constructor, {@code return (source)}, and each invocation calls the factory
 *       for a fresh closure; a source with statements (not one expression) is evaluated by a direct
 *       {@code eval} inside a fresh function call instead, which keeps its declarations local.</li>
 * </ul>
 *
 * {@code Math.random} draws from the running invocation's own generator, and the {@code Symbol.for}
 * registry is the running invocation's own (see {@link #SYMBOLS}); what is left shared is the
 * engine's caches. Promise jobs run before {@code execute} returns. A realm is retired after
 * {@value #MAX_USES} invocations (bounding what the engine keeps per realm, such as shapes and
 * caches; locking a new one down costs tens of milliseconds, so the bound is set high enough that
 * this is a fraction of a microsecond per invocation), and discarded after any invocation that did
 * not end cleanly (see {@link JsRealmPool}).
 */
final class JsRealm {
    /** Invocations after which a realm is retired (unless a compiler made for tests says otherwise). */
    static final int MAX_USES = 50_000;
    /** Factories kept per realm (one per function). */
    private static final int MAX_FACTORIES = 64;

    private static final Source HARDEN = Source.newBuilder("js", """
            (hostSeeds, hostThrower) => {
                'use strict';
                const {freeze, getPrototypeOf, getOwnPropertyDescriptor} = Object, ownKeys = Reflect.ownKeys;
                const seen = new Set([globalThis]), todo = [];
                const add = v => {
                    if (((typeof v === 'object' && v !== null) || typeof v === 'function') && !seen.has(v)) {
                        seen.add(v);
                        todo.push(v);
                    }
                };
                const addMembers = o => {
                    for (const k of ownKeys(o)) {
                        const d = getOwnPropertyDescriptor(o, k);
                        add(d.value);
                        add(d.get);
                        add(d.set);
                    }
                    add(getPrototypeOf(o));
                };
                addMembers(globalThis);
                add(getPrototypeOf(function* () {}));
                add(getPrototypeOf(async function () {}));
                add(getPrototypeOf(async function* () {}));
                add(getPrototypeOf([][Symbol.iterator]()));
                add(getPrototypeOf(new Map()[Symbol.iterator]()));
                add(getPrototypeOf(new Set()[Symbol.iterator]()));
                add(getPrototypeOf(''[Symbol.iterator]()));
                add(getPrototypeOf('a'.matchAll(/a/g)));
                add(getPrototypeOf(Int8Array));
                add(getPrototypeOf((function* () {})()));
                add(getPrototypeOf((async function* () {})()));
                add((function () { 'use strict'; return getOwnPropertyDescriptor(arguments, 'callee').get; })());
                // the prototypes the engine gives host (foreign) values, such as the state and
                // result a function is handed: reachable from no global, yet shared by the realm
                for (let i = 0; i < hostSeeds.length; i++) {
                    add(getPrototypeOf(hostSeeds[i]));
                }
                // and the prototype of a host exception a function catches (rpcc.end's refusals)
                try {
                    hostThrower();
                } catch (e) {
                    add(getPrototypeOf(e));
                }
                // prototypes that only objects made by built-ins lead to (where this GraalJS has them)
                const seeds = [
                    () => getPrototypeOf([].values().map(x => x)),
                    () => getPrototypeOf(Iterator.from({ next() { return { done: true }; } })),
                    () => getPrototypeOf(new Intl.Segmenter().segment('a')),
                    () => getPrototypeOf(new Intl.Segmenter().segment('a')[Symbol.iterator]()),
                    () => getPrototypeOf(new Intl.Segmenter().segment('a').containing(0)),
                    () => getPrototypeOf(new DisposableStack()),
                    () => getPrototypeOf(new AsyncDisposableStack()),
                ];
                for (const seed of seeds) {
                    try {
                        add(seed());
                    } catch (e) {
                        // not in this GraalJS
                    }
                }
                while (todo.length > 0) {
                    const o = todo.pop();
                    addMembers(o);
                    freeze(o);
                }
            }
            """, "rpcc-harden.js").buildLiteral();

    /**
     * Replaces {@code Math.random} (whose generator a realm would share across its invocations, a
     * channel: one could learn or predict another's draws) with draws from the running invocation's
     * own generator ({@link Invocation#random}).
     */
    private static final Source RANDOM = Source.newBuilder("js", """
            (draw) => {
                'use strict';
                const random = {random() { return draw(); }}.random;
                Object.defineProperty(Math, 'random', {value: random, writable: true, configurable: true});
            }
            """, "rpcc-random.js").buildLiteral();

    /**
     * Replaces the realm's {@code Symbol.for} registry (which would keep every key any invocation
     * registered, for the realm's life) with one per invocation: {@code Symbol.for} and
     * {@code Symbol.keyFor} behave as usual within an invocation, and the next one starts with an
     * empty registry ({@code epoch()} tells invocations apart). The symbols are ordinary ones, so
     * unlike registered symbols they may also be WeakMap keys.
     */
    private static final Source SYMBOLS = Source.newBuilder("js", """
            (epoch) => {
                'use strict';
                const MapC = Map, get = Map.prototype.get, set = Map.prototype.set, apply = Reflect.apply, Sym = Symbol;
                let at = -1, byKey = null, byValue = null;
                const current = () => {
                    const e = epoch();
                    if (e !== at) {
                        at = e;
                        byKey = new MapC();
                        byValue = new MapC();
                    }
                };
                const registry = {
                    for(key) {
                        const k = `${key}`;
                        current();
                        let s = apply(get, byKey, [k]);
                        if (s === undefined) {
                            s = Sym(k);
                            apply(set, byKey, [k, s]);
                            apply(set, byValue, [s, k]);
                        }
                        return s;
                    },
                    keyFor(sym) {
                        if (typeof sym !== 'symbol') {
                            throw new TypeError('Symbol.keyFor: not a symbol');
                        }
                        current();
                        return apply(get, byValue, [sym]);
                    }
                };
                Object.defineProperty(Sym, 'for', {value: registry.for, writable: true, configurable: true});
                Object.defineProperty(Sym, 'keyFor', {value: registry.keyFor, writable: true, configurable: true});
            }
            """, "rpcc-symbols.js").buildLiteral();

    private static final Source FREEZE_GLOBAL = Source.newBuilder("js", "Object.freeze(globalThis)",
            "rpcc-freeze-global.js").buildLiteral();

    /**
     * Makes a function's factory from its source: {@code return (source)} as the body of a new
     * function (whatever the source holds stays inside that body), or, for a source that is not one
     * expression, a function that evaluates it with a direct {@code eval} in a fresh scope per call.
     */
    private static final Source FACTORY_MAKER = Source.newBuilder("js", """
            (() => {
                'use strict';
                const F = Function, freeze = Object.freeze;
                // the guest reaches the factory (and the evaluator) as arguments.callee, and its
                // prototype object through it: frozen, they carry nothing to the next invocation
                const sealed = f => {
                    freeze(f.prototype);
                    return freeze(f);
                };
                return (source, trimmed) => {
                    try {
                        return sealed(F('return (\\n' + source + '\\n)'));
                    } catch (e) {
                        // not one expression
                    }
                    try {
                        return sealed(F('return (\\n' + trimmed + '\\n)'));
                    } catch (e) {
                        // statements
                    }
                    const evaluate = sealed(F('source', 'return eval(source)'));
                    return freeze(() => evaluate(source));
                };
            })()
            """, "rpcc-factory.js").buildLiteral();

    private final Context context;
    private final Value factoryMaker;
    private final Map<String, Value> factories = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Value> eldest) {
            return size() > MAX_FACTORIES;
        }
    };
    private Invocation invocation;
    private RpccGlobal rpcc;
    private final int maxUses;
    private int uses;

    /**
     * Makes and locks down a realm in {@code context} (a fresh one), after {@code prologue} (the
     * guards of built-ins) has run in it, to be retired after {@code maxUses} invocations.
     */
    JsRealm(Context context, Source prologue, Map<String, String> tripwires, int maxUses) {
        this.context = context;
        this.maxUses = maxUses;
        context.eval(prologue);
        context.eval(RANDOM).execute((ProxyExecutable) args -> current().random());
        context.eval(SYMBOLS).execute((ProxyExecutable) args -> uses);
        context.eval(HARDEN).execute(ProxyArray.fromArray(hostSeeds()), (ProxyExecutable) args -> {
            throw new IllegalArgumentException("a host exception, for its prototype");
        });
        Value bindings = context.getBindings("js");
        tripwires.forEach((name, rule) -> bindings.putMember(name, new Tripwire(name, rule, this::current)));
        bindings.putMember("FinalizationRegistry", new Tripwire("FinalizationRegistry", "threads", this::current));
        bindings.putMember("rpcc", new CurrentRpcc());
        context.eval(FREEZE_GLOBAL);
        this.factoryMaker = context.eval(FACTORY_MAKER);
    }

    /**
     * Host values of every kind that guest code is handed (an object, an array, a function, a
     * stand-in that is all three, and the other kinds the polyglot API has), whose prototypes
     * {@link #HARDEN} freezes too.
     */
    private Object[] hostSeeds() {
        return new Object[] {
            ProxyObject.fromMap(new java.util.HashMap<>()),
            ProxyArray.fromArray(),
            (ProxyExecutable) args -> null,
            new Tripwire("seed", "host-access", this::current),
            ProxyHashMap.from(new java.util.HashMap<>()),
            (ProxyIterable) () -> ProxyIterator.from(java.util.Collections.emptyIterator()),
            ProxyIterator.from(java.util.Collections.emptyIterator()),
            ProxyInstant.from(java.time.Instant.EPOCH),
            new Object(),
            java.util.List.of(),
        };
    }

    Context context() {
        return context;
    }

    /** Makes {@code inv} (in the chain {@code ctx}, or none) the invocation that runs next. */
    void bind(Invocation inv, ChainContext ctx) {
        this.invocation = inv;
        this.rpcc = new RpccGlobal(ctx, inv);
        uses++;
    }

    /** The invocation ended: nothing of it stays reachable from the realm. */
    void unbind() {
        this.invocation = null;
        this.rpcc = null;
    }

    /** Whether this realm has run its share of invocations and is to be retired. */
    boolean worn() {
        return uses >= maxUses;
    }

    /**
     * A fresh closure of the function {@code key} whose source is {@code source}: its factory (made
     * once per realm) called once more.
     */
    Value freshFunction(String key, String source) {
        Value factory = factories.get(key);
        if (factory == null) {
            factory = factoryMaker.execute(source, trimmed(source));
            factories.put(key, factory);
        }
        return factory.execute();
    }

    /** {@code source} without trailing white space and semicolons ({@code f => x;} is one expression too). */
    private static String trimmed(String source) {
        int end = source.length();
        while (end > 0 && (Character.isWhitespace(source.charAt(end - 1)) || source.charAt(end - 1) == ';')) {
            end--;
        }
        return source.substring(0, end);
    }

    private Invocation current() {
        Invocation inv = invocation;
        if (inv == null) {
            throw new IllegalStateException("no invocation is running in this JavaScript context");
        }
        return inv;
    }

    /** The {@code rpcc} global of a reused realm: the running invocation's {@link RpccGlobal}. */
    private final class CurrentRpcc implements ProxyObject {
        private RpccGlobal target() {
            RpccGlobal g = rpcc;
            if (g == null) {
                throw new IllegalStateException("no invocation is running in this JavaScript context");
            }
            return g;
        }

        @Override
        public Object getMember(String key) {
            return target().getMember(key);
        }

        @Override
        public Object getMemberKeys() {
            return target().getMemberKeys();
        }

        @Override
        public boolean hasMember(String key) {
            return target().hasMember(key);
        }

        @Override
        public void putMember(String key, Value value) {
            target().putMember(key, value);
        }

        @Override
        public boolean removeMember(String key) {
            return target().removeMember(key);
        }
    }

    /** Closes the context (a retired or damaged realm). */
    void close() {
        try {
            context.close(true);
        } catch (RuntimeException e) {
            // closed already (cancelled by the watcher)
        }
    }

    @Override
    public String toString() {
        return "JsRealm[uses=" + uses + ", factories=" + factories.size() + "]";
    }
}
