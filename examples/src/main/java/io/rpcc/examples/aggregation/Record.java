package io.rpcc.examples.aggregation;

/**
 * A record produced by a source.
 *
 * @param source the source's name
 * @param index the record's number at that source
 * @param producedAtMs when the source produced it, in ms after the source received the request
 */
public record Record(String source, int index, long producedAtMs) {
}
