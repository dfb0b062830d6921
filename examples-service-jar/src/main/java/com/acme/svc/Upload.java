package com.acme.svc;

import io.rpcc.core.RpccType;

/**
 * What the streaming service function {@code checksum} read of an uploaded data stream named {@code name}:
 * its length, its lines (newline characters), its CRC-32 and the node that read it.
 */
@RpccType
public record Upload(String name, long bytes, long lines, long crc32, String node) {
}
