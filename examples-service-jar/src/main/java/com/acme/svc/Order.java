package com.acme.svc;

import io.rpcc.core.RpccType;
import java.util.List;

/** A customer's order: what the {@code order} service function returns and {@code price} receives. */
@RpccType
public record Order(String id, String customer, List<Line> lines) {
    public Order {
        lines = List.copyOf(lines);
    }
}
