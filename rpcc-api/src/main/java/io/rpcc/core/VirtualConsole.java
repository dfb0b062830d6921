package io.rpcc.core;

import java.util.List;

/**
 * The chain's virtual console (paper section 3.7): "printf" for code that runs at servers. Lines
 * travel with the chain and reach the originator in {@link ChainResult#console()} (or in the
 * {@link ChainException} if the chain fails).
 *
 * <pre>{@code
 * ChainContext.current().console().println("cache miss for " + key);
 * }</pre>
 *
 * <p>Safe to use from any thread. Keep it short: the console is part of every hop's message.
 */
public final class VirtualConsole {
    private final int hop;
    private final String host;
    private final String source;
    private final List<ConsoleLine> sink;

    /** A console that appends to {@code sink}; created by rpcc for each service or chaining function. */
    public VirtualConsole(int hop, String host, String source, List<ConsoleLine> sink) {
        this.hop = hop;
        this.host = host;
        this.source = source;
        this.sink = sink;
    }

    /** Writes a line. */
    public void println(Object text) {
        sink.add(new ConsoleLine(hop, host, source, String.valueOf(text)));
    }

    /** Writes a formatted line, as {@link String#format(String, Object...)}. */
    public void printf(String format, Object... args) {
        println(String.format(format, args));
    }
}
