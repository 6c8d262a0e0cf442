enum _PaysheetScenarioPlaceholder {}
