package io.rpcc.examples.spring.shipping;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** App B: ships priced orders (service function "ship"); its settings are in {@code shipping.properties}. */
@SpringBootApplication
public class ShippingApplication {

    /** Runs the shipping service until it is stopped. */
    public static void main(String[] args) {
        new SpringApplicationBuilder(ShippingApplication.class).properties("spring.config.name=shipping").run(args);
    }
}
