package io.rpcc.observability.internal;

import io.rpcc.server.HopDecorator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code function} tag of a hop's meters and observation, kept to a bounded set of values: a
 * meter registry keeps every distinct tag value it is given for good, so a value a peer chooses must
 * not reach it unbounded. A service hop's function is one the server hosts (the server hands a
 * decorator no other name); a chaining proxy's hop names the function that ran at the server that
 * delegated, which the proxy cannot check, so the first {@link #LIMIT} such names are kept and later
 * ones are tagged {@link #OTHER}.
 */
final class FunctionTags {
    /** The tag of a hop that has no service function (a sub-chain's return, a merge). */
    static final String NONE = "none";
    /** The tag of a service hop whose function this server does not host. */
    static final String UNKNOWN = "unknown";
    /** The tag of a proxied hop's function once {@link #LIMIT} others have been seen. */
    static final String OTHER = "other";
    /** How many distinct names of functions that ran elsewhere are kept as tags. */
    static final int LIMIT = 256;

    private final Set<String> elsewhere = ConcurrentHashMap.newKeySet();

    /** The tag of {@code start}'s service function. */
    String of(HopDecorator.Start start) {
        String function = start.serviceFunction();
        if (function == null) {
            return start.kind() == HopDecorator.Kind.SERVICE ? UNKNOWN : NONE;
        }
        if (start.kind() == HopDecorator.Kind.SERVICE || elsewhere.contains(function)) {
            return function;
        }
        if (elsewhere.size() >= LIMIT) { // a race may add a few more than LIMIT: still bounded
            return OTHER;
        }
        elsewhere.add(function);
        return function;
    }
}
