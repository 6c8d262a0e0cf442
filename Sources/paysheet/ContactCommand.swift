import ArgumentParser
import Foundation
import PaysheetContact
import PaysheetModel

struct ContactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contact",
        abstract: "Validate and normalise contacts as Apple's guidelines ask.",
        subcommands: [Validate.self]
    )

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Read an ApplePayPaymentContact (JSON) and print {\"contact\": <normalised>, \"errors\": [...]}; exit 0 without errors, 1 with errors, 2 on unreadable input."
        )

        @Option(help: "redacted (before authorization) or full (after it).")
        var phase: String = "full"

        @Option(
            help:
                "Comma-separated requested fields: email, name, phone, phoneticName, postalAddress, or an error's names (emailAddress, phoneNumber, …) (default: all)."
        )
        var required: String = "email,name,phone,phoneticName,postalAddress"

        @Option(help: "billing or shipping.")
        var role: String = "shipping"

        @Option(
            name: .customLong("country-policy"),
            help:
                "A JSON policy: countries, regions, refusePOBoxes, requiredFields, fiveDigitZIP, language, defaultPhoneRegion."
        )
        var countryPolicy: String?

        @Flag(help: "Read one contact per line (JSON lines) and print one result per line; exit 0.")
        var lines = false

        @Argument(help: "The contact JSON file, or - for standard input.")
        var file: String

        func run() throws {
            func usage(_ message: String) -> ExitCode {
                writeErr("error: \(message)")
                return ExitCodes.usage
            }
            guard let phase = ContactValidationPhase(rawValue: phase) else {
                throw usage("--phase must be redacted or full")
            }
            guard let role = ContactRole(rawValue: role) else { throw usage("--role must be shipping or billing") }
            var fields = Set<ApplePayContactField>()
            for name in required.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
            where !name.isEmpty {
                guard let field = ApplePayContactField(requestOrErrorName: name) else {
                    throw usage(
                        "--required: unknown field \(name) (known: email, name, phone, phoneticName, postalAddress, or emailAddress, phoneNumber, …)"
                    )
                }
                fields.insert(field)
            }
            var policy = ContactValidationPolicy()
            if let countryPolicy {
                do {
                    let value = try JSONParser.parse(try readInput(countryPolicy))
                    policy = try decodeJSONValue(ContactValidationPolicy.self, from: value)
                } catch {
                    throw usage("--country-policy \(countryPolicy): \(error)")
                }
            }
            let validator = ContactValidator(policy: policy)
            let text: String
            do { text = try readInput(file) } catch { throw usage("\(error)") }
            func validate(_ json: String, where place: String) throws -> ContactValidationResult {
                let value: JSONValue
                do { value = try JSONParser.parse(json) } catch { throw usage("\(place) is not JSON: \(error)") }
                guard case .object = value else {
                    throw usage("\(place) must be a JSON object (an ApplePayPaymentContact)")
                }
                let contact: ApplePayPaymentContact
                do { contact = try decodeJSONValue(ApplePayPaymentContact.self, from: value) } catch {
                    throw usage("\(place) is not an ApplePayPaymentContact: \(error)")
                }
                return validator.validate(contact, requiredFields: fields, phase: phase, role: role)
            }
            func render(_ result: ContactValidationResult) -> String {
                let errors: [JSONValue] = result.errors.map { e in
                    var o = JSONObject()
                    o["code"] = .string(e.code.rawValue)
                    o["contactField"] = e.contactField.map { .string($0.rawValue) } ?? .null
                    o["message"] = .string(e.message)
                    return .object(o)
                }
                return JSONValue.object(
                    JSONObject([("contact", result.contact.jsonValue), ("errors", .array(errors))])
                ).compactText
            }
            if lines {
                for (i, line) in text.split(separator: "\n").enumerated()
                where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                    print(render(try validate(String(line), where: "line \(i + 1)")))
                }
                return
            }
            let result = try validate(text, where: file == "-" ? "standard input" : file)
            print(render(result))
            if !result.errors.isEmpty { throw ExitCodes.failed }
        }
    }
}
