package io.rpcc.server.internal;

import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.HopLocation;
import io.rpcc.core.internal.wire.ChainHeader;
import java.util.List;

/**
 * A request taken up here, decoded once where it starts to run ({@link HopExecutor}): what it is,
 * its header, and what the hop gathers as it runs. It travels, whole, through the handler of its
 * kind, the chaining function and the sending of what comes next, instead of its parts.
 *
 * @param kind what the request is
 * @param header its header; a return or a recovered failure resumes the parked hop under its header
 *     ({@link #resumedAs})
 * @param path the chain's path, with this node if the request is a hop of its own
 * @param console the chain's console, to which the hop's functions (and work they started) write
 * @param timings the chain's timings, to which the hop adds its own
 * @param running the hop's entry among the hops running here: its partial replies and share of the
 *     chain's credit ({@link #replies()}), its deadline, heartbeat and cancellation ({@link #control()});
 *     a composed return shares it with the hop that ended the sub-chain
 * @param watch how the hop ends, for the server's hop decorators ({@link HopWatch#NONE} if none)
 */
record HopState(HopKind kind, ChainHeader header, List<String> path, List<ConsoleLine> console,
                List<HopTiming> timings, RunningHops.Hop running, HopWatch watch) {
    /** The hop's partial replies and its share of the chain's credit. */
    HopReplies replies() {
        return running.replies();
    }

    /** The hop's deadline, heartbeat and cancellation. */
    HopControl control() {
        return running.control();
    }

    /** Adds {@code timing}, this hop's, to the chain's timings (and tells the watch). */
    void addTiming(HopTiming timing) {
        timings.add(timing);
        watch.timing(timing);
    }

    /** The chain's name in messages: {@code origin#id}. */
    String chainId() {
        return header.origin() + "#" + header.chainId();
    }

    /** The console as it is now. */
    List<ConsoleLine> consoleNow() {
        return List.copyOf(console);
    }

    /**
     * The context of this hop's functions other than its service function, at node {@code nodeName},
     * writing to its console as {@code source}.
     */
    HopContext context(String nodeName, String source) {
        return new HopContext(location(nodeName), new VirtualConsole(header.hop(), nodeName, source, console),
                replies().unkeyed(), header.metadata(), control());
    }

    /** Where this hop's functions run: this hop of its chain, at node {@code nodeName}. */
    HopLocation location(String nodeName) {
        RunningHops.Asker asker = running.asker();
        return new HopLocation(chainId(), header.origin(), header.hop(), header.branch(), nodeName, asker.caller(),
                asker.isolation());
    }

    /** This hop, resumed as the hop of {@code resumed} (a sub-chain returned to it). */
    HopState resumedAs(ChainHeader resumed) {
        return new HopState(kind, resumed, path, console, timings, running, watch);
    }
}
