package dev.skiplock.example;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class SignupController {
    private final SignupService signups;

    public SignupController(SignupService signups) {
        this.signups = signups;
    }

    @PostMapping("/signups")
    @ResponseStatus(HttpStatus.CREATED)
    public SignupService.Signup signUp(@RequestParam("email") String email) {
        return signups.signUp(email);
    }

    @ExceptionHandler(SignupService.SignupRefusedException.class)
    @ResponseStatus(HttpStatus.UNPROCESSABLE_ENTITY)
    public String refused(SignupService.SignupRefusedException refused) {
        return refused.getMessage();
    }
}
