package io.rpcc.server;

/**
 * Counters of the data streams that reached a server's hops ({@code StreamingServiceFunction}).
 *
 * @param streamsOpened streams announced to this server so far (refused ones aside)
 * @param bufferedBytes bytes of streams that arrived and that no service function has read yet, now
 * @param peakBufferedBytes the most such bytes at once so far: each stream holds at most
 *     {@code NodeBuilder.streamWindowBytes}, however large it is and however slowly it is read, and
 *     all streams together at most {@code budgetBytes}
 * @param heldBytes bytes of the budget the open streams hold now: buffered, or room granted to their
 *     senders that may still arrive (never over {@code budgetBytes})
 * @param budgetBytes what all streams arriving at this server may hold at once
 *     ({@code NodeBuilder.streamBufferBytes})
 * @param budgetBytesPerAddress what the streams arriving from one remote address may hold at once, of
 *     {@code budgetBytes} ({@code NodeBuilder.streamBufferShare})
 */
public record StreamStats(long streamsOpened, long bufferedBytes, long peakBufferedBytes, long heldBytes,
                          long budgetBytes, long budgetBytesPerAddress) {
}
