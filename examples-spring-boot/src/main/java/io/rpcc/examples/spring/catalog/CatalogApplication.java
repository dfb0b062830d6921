package io.rpcc.examples.spring.catalog;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** App A: prices orders (service function "price"); its settings are in {@code catalog.properties}. */
@SpringBootApplication
public class CatalogApplication {

    /** Runs the catalog until it is stopped. */
    public static void main(String[] args) {
        new SpringApplicationBuilder(CatalogApplication.class).properties("spring.config.name=catalog").run(args);
    }
}
