enum _PaysheetSheetPlaceholder {}
