import PaysheetModel

/// `ApplePaySetup` (Safari 14+): the features the wallet could set up for a merchant, and the
/// setup flow a page begins in a user gesture (WebKit's `ApplePaySetup.cpp`). The simulated wallet's
/// features come from ``SheetMachine/addSetupFeature(state:type:supportsInstallments:)`` (WebKit's
/// mock coordinator's `addSetupFeature`); the flow itself completes at once with `true`: there is
/// no card to add in a simulation.
extension SheetMachine {
    /// The states of `ApplePaySetupFeature.state`.
    static let setupFeatureStates: Set<String> = ["supported", "supplementarySupported", "unsupported"]

    /// `new ApplePaySetup(configuration)`: the `ApplePaySetupConfiguration` binding. `returned` is the
    /// configuration as bound (the page passes it back with each call).
    public func makeSetup(configuration: JSONValue?) -> PageResult {
        do throws(ScriptError) {
            return PageResult(returned: try bindSetupConfiguration(configuration))
        } catch {
            return PageResult(threw: error)
        }
    }

    func bindSetupConfiguration(_ value: JSONValue?) throws(ScriptError) -> JSONValue {
        let binding = WebIDLBinding(profile: configuration.profile)
        let members = try binding.dictionary(value ?? .null)
        var out = JSONObject()
        if let identifier = members["merchantIdentifier"] {
            out["merchantIdentifier"] = .string(binding.string(identifier))
        }
        if let identifier = members["referrerIdentifier"] {
            out["referrerIdentifier"] = .string(binding.string(identifier))
        }
        if let signature = members["signature"] { out["signature"] = .string(binding.string(signature)) }
        if let fields = members["signedFields"] {
            out["signedFields"] = .array(try binding.sequence(fields).map { .string(binding.string($0)) })
        }
        return .object(out)
    }

    /// WebKit's mock `addSetupFeature(state, type, supportsInstallments)`: a feature the wallet offers.
    public mutating func addSetupFeature(
        state: JSONValue,
        type: JSONValue,
        supportsInstallments: JSONValue
    ) -> PageResult {
        let binding = WebIDLBinding(profile: configuration.profile)
        do throws(ScriptError) {
            let stateName = try binding.member(state, Self.setupFeatureStates)
            let typeName = try binding.member(type, WebIDLBinding.setupFeatureTypes)
            setupFeatures.append([
                "state": .string(stateName), "type": .string(typeName),
                "supportsInstallments": .bool(binding.boolean(supportsInstallments)),
            ])
            return PageResult()
        } catch {
            return PageResult(threw: error)
        }
    }

    /// `getSetupFeatures()`: the wallet's features for the configuration.
    public mutating func getSetupFeatures(configuration setup: JSONValue) -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        setupConfiguration = setup
        return PageResult(returned: .array(setupFeatures))
    }

    /// `begin(features)`: only in a user gesture, one at a time; resolves with whether the user set
    /// up a feature (always, here).
    public mutating func beginSetup(
        configuration setup: JSONValue,
        features: JSONValue?,
        userGesture: Bool
    ) -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        guard userGesture else {
            return PageResult(
                threw: ScriptError(.invalidAccessError, "Must call ApplePaySetup.begin from a user gesture handler.")
            )
        }
        if sheet?.visible == true { return PageResult(threw: .invalidState()) }
        if let features {
            do throws(ScriptError) { _ = try WebIDLBinding(profile: configuration.profile).sequence(features) } catch {
                return PageResult(threw: error)
            }
        }
        setupConfiguration = setup
        return PageResult(returned: .bool(true))
    }
}
