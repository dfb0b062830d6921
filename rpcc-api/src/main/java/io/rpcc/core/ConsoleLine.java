package io.rpcc.core;

/**
 * A line that a service or chaining function wrote to the chain's {@link VirtualConsole}.
 *
 * @param hop the hop's index, starting at 1
 * @param host the node where the line was written
 * @param source {@code "service:<name>"} or {@code "chaining"}
 * @param text the text
 */
public record ConsoleLine(int hop, String host, String source, String text) {
    @Override
    public String toString() {
        return "[hop " + hop + " " + host + " " + source + "] " + text;
    }
}
