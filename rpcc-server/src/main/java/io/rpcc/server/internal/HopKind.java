package io.rpcc.server.internal;

import io.rpcc.server.HopDecorator;

/**
 * What a request that arrives at a server is, decoded once from its header's service-function name:
 * a hop of the chain (an application service function), or one of the requests rpcc sends itself
 * under reserved names ({@code rpcc.*}, which no application service function may take). The wire
 * carries the name; the server dispatches on this kind. The reserved names are spelled here only
 * (an architecture rule keeps it so): everything else sends and tells them through this kind.
 */
enum HopKind {
    /** A hop: the application's service function of that name runs. */
    SERVICE(null),
    /** The chaining proxy runs the chaining function for the server that ran the service function (paper 7.3). */
    PROXY("rpcc.proxy.chain"),
    /** A sub-chain returns its result to its creator, resuming the hop parked there (paper 3.4). */
    RETURN("rpcc.return"),
    /** A sub-chain's failure returns to its creator, whose failure handler decides (paper 3.8). */
    RETURN_FAILURE("rpcc.return.failure"),
    /** The opening of a split, at its merge host (paper 3.10). */
    SPLIT_OPENING("rpcc.split"),
    /** A branch's result, at its split's merge host. */
    BRANCH_OUTCOME("rpcc.merge"),
    /** A branch's failure, at its split's merge host. */
    BRANCH_FAILURE("rpcc.merge.failed"),
    /** The merge, run as a hop of its own at the merge host once every branch is in (never sent). */
    MERGED("rpcc.merged");

    private final String wireName;

    HopKind(String wireName) {
        this.wireName = wireName;
    }

    /**
     * The service-function name requests of this kind carry on the wire (and in a hop's timing);
     * {@code null} for {@link #SERVICE}, whose name is the application's.
     */
    String wireName() {
        return wireName;
    }

    /** The kind of a request for {@code serviceFunction}. */
    static HopKind of(String serviceFunction) {
        if (!serviceFunction.startsWith("rpcc.")) {
            return SERVICE;
        }
        for (HopKind k : values()) {
            if (serviceFunction.equals(k.wireName)) {
                return k;
            }
        }
        return SERVICE; // a reserved name rpcc does not use: refused as an unknown service function
    }

    /** Whether it arrives at a split's merge host (an opening or a branch's outcome). */
    boolean arrivesAtMerge() {
        return this == SPLIT_OPENING || this == BRANCH_OUTCOME || this == BRANCH_FAILURE;
    }

    /**
     * Whether it travels to the innermost point of its return stack, which it has not popped yet (a
     * return to a creator, or an arrival at a merge host).
     */
    boolean toUnpoppedPoint() {
        return this == RETURN || this == RETURN_FAILURE || arrivesAtMerge();
    }

    /**
     * What a hop of this kind is to the server's {@link HopDecorator}s; {@code null} for an arrival at
     * a merge host, which only waits there and is not decorated.
     */
    HopDecorator.Kind decorated() {
        return switch (this) {
            case SERVICE -> HopDecorator.Kind.SERVICE;
            case PROXY -> HopDecorator.Kind.CHAINING_PROXY;
            case RETURN, RETURN_FAILURE -> HopDecorator.Kind.SUB_CHAIN_RETURN;
            case MERGED -> HopDecorator.Kind.MERGE;
            case SPLIT_OPENING, BRANCH_OUTCOME, BRANCH_FAILURE -> null;
        };
    }

    /** Whether it is a hop of the chain of its own (its node appears in the chain's path). */
    boolean isHopOfItsOwn() {
        return this == SERVICE;
    }
}
