package io.weft.examples.spring;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /announce?text=...} (or a form field): an ordinary Spring MVC endpoint that publishes to Bayeux. */
@RestController
public class AnnounceController {
    private final Announcer announcer;

    public AnnounceController(Announcer announcer) {
        this.announcer = announcer;
    }

    @PostMapping("/announce")
    public ResponseEntity<Void> announce(@RequestParam("text") String text) {
        announcer.announce(text);
        return ResponseEntity.accepted().build();
    }
}
