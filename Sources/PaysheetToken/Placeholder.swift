enum _PaysheetTokenPlaceholder {}
