package com.acme.svc;

import io.rpcc.core.ChainContext;

/**
 * A class that implements the service interfaces {@link Pricing} and {@link Stock}, with no annotation of
 * its own: the node loads it by name ({@code rpcc.services.classes=com.acme.svc.Store}) and registers the
 * {@code @ServiceMethod} methods of its interfaces, {@code quote} and {@code hold}.
 */
public class Store implements Pricing, Stock {
    @Override
    public Quote quote(Order order) {
        return new Quote(order.id(), order.lines().stream().mapToLong(Line::cents).sum(), ChainContext.current().node());
    }

    @Override
    public Receipt hold(Quote quote, Order order) {
        return new Receipt(order.id(), order.customer(), quote.totalCents(), quote.pricedAt(), ChainContext.current().node());
    }
}
