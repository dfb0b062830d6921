package com.acme.svc;

import io.rpcc.core.RpccType;

/** A partial reply: step {@code step} of order {@code orderId} is done at node {@code node}. */
@RpccType
public record Progress(String orderId, String step, String node) {
}
