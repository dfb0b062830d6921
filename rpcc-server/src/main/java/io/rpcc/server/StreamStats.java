package io.rpcc.server;

/**
 * Counters of the data streams that reached a server's hops ({@code StreamingServiceFunction}).
 *
 * @param streamsOpened streams announced to this server so far (refused ones aside)
 * @param bufferedBytes bytes of streams that arrived and that no service function has read yet, now
 * @param peakBufferedBytes the most such bytes at once so far: each stream holds at most
 *     {@code NodeBuilder.streamWindowBytes}, however large it is and however slowly it is read
 */
public record StreamStats(long streamsOpened, long bufferedBytes, long peakBufferedBytes) {
}
