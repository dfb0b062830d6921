package io.rpcc.examples.spring.checkout;

import io.rpcc.examples.spring.model.CatalogueImport;
import io.rpcc.examples.spring.model.Order;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.examples.spring.model.Shipment;
import io.rpcc.examples.spring.model.StockLevel;
import io.rpcc.spring.boot.web.RpccSse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The checkout's HTTP endpoint: {@code GET /checkout/o-1?sku=KB-42&quantity=2&country=FR} streams the
 * chain as server-sent events, a {@code reply} event per {@code Quote} as the servers send them, then
 * a {@code result} event with the {@code Shipment} (or an {@code error} event with its code and message).
 *
 * <pre>
 * $ curl -N 'localhost:8080/checkout/o-1?sku=KB-42&amp;quantity=2&amp;country=FR'
 * event:reply
 * data:{"orderId":"o-1","step":"priced","totalCents":9998}
 *
 * event:reply
 * data:{"orderId":"o-1","step":"shipped","totalCents":9998}
 *
 * event:result
 * data:{"orderId":"o-1","totalCents":9998,"carrier":"road","days":2}
 * </pre>
 */
@RestController
public class CheckoutController {
    private final CheckoutService checkout;

    /** The endpoint of {@code checkout}. */
    public CheckoutController(CheckoutService checkout) {
        this.checkout = checkout;
    }

    /** Checks order {@code id} out, streaming its progress and then its shipment. */
    @GetMapping("/checkout/{id}")
    public SseEmitter checkout(@PathVariable String id, @RequestParam String sku,
                               @RequestParam(defaultValue = "1") int quantity,
                               @RequestParam(defaultValue = "FR") String country) {
        return RpccSse.emitter(checkout.start(new Order(id, sku, quantity, country)));
    }

    /**
     * Checks order {@code id} out along the express route (a static route: catalog, then shipping) and
     * answers the {@code Shipment} as JSON: {@code GET /express/o-1?sku=KB-42&quantity=2&country=FR}.
     */
    @GetMapping("/express/{id}")
    public Shipment express(@PathVariable String id, @RequestParam String sku,
                            @RequestParam(defaultValue = "1") int quantity,
                            @RequestParam(defaultValue = "FR") String country) {
        return checkout.express(new Order(id, sku, quantity, country));
    }

    /**
     * As {@link #checkout}, with the chain written as straight-line code ({@code SequentialCheckout}):
     * the same events. {@code GET /sequential/o-1?sku=KB-42&quantity=2&country=FR}.
     */
    @GetMapping("/sequential/{id}")
    public SseEmitter sequential(@PathVariable String id, @RequestParam String sku,
                                 @RequestParam(defaultValue = "1") int quantity,
                                 @RequestParam(defaultValue = "FR") String country) {
        return RpccSse.emitter(checkout.startSequential(new Order(id, sku, quantity, country)));
    }

    /**
     * Checks order {@code id} out with the chain written in {@code style} ({@code sequential} or
     * {@code continuation}) and answers its shipment, path and quotes as JSON:
     * {@code GET /outcome/o-1?style=sequential&sku=KB-42}.
     */
    @GetMapping("/outcome/{id}")
    public CheckoutService.CheckoutOutcome outcome(@PathVariable String id, @RequestParam String style,
                                                   @RequestParam String sku,
                                                   @RequestParam(defaultValue = "1") int quantity,
                                                   @RequestParam(defaultValue = "FR") String country) {
        return checkout.outcome(style, new Order(id, sku, quantity, country));
    }

    /**
     * Imports the catalogue file in the request's body ({@code SKU;cents} lines) at the catalog: the
     * body goes on to the catalog as a data stream while it is uploaded, and the catalog reads it as it
     * arrives. {@code curl --data-binary @prices.csv localhost:8080/catalogue/prices.csv}
     */
    @PostMapping("/catalogue/{name}")
    public CatalogueImport importCatalogue(@PathVariable String name, HttpServletRequest request) throws IOException {
        return checkout.importCatalogue(name, request.getInputStream());
    }

    /**
     * Checks order {@code id} out in one transaction across the catalog and shipping (an atomic chain:
     * the stock is taken and the shipment booked, or neither) and answers the {@code Shipment}:
     * {@code POST /orders/o-1?sku=KB-42&quantity=2&country=FR}. A refusal answers 409 (see
     * {@link #aborted}).
     */
    @PostMapping("/orders/{id}")
    public Shipment order(@PathVariable String id, @RequestParam String sku,
                          @RequestParam(defaultValue = "1") int quantity,
                          @RequestParam(defaultValue = "FR") String country) {
        return checkout.atomicCheckout(new Order(id, sku, quantity, country));
    }

    /** The catalog's stock of {@code sku}: {@code GET /stock/KB-42}. */
    @GetMapping("/stock/{sku}")
    public StockLevel stock(@PathVariable String sku) {
        return checkout.stock(sku);
    }

    /**
     * An atomic checkout that was aborted (nothing of it happened anywhere) answers 409 Conflict with the
     * chain's error as JSON: {@code {"code":"ABORTED","message":"...","host":"shipping","hop":2}}, the
     * host and hop of the refusal.
     */
    @ExceptionHandler(TransactionAbortedException.class)
    public ResponseEntity<RpccSse.ErrorEvent> aborted(TransactionAbortedException e) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(RpccSse.ErrorEvent.of(e));
    }
}
